#pragma once
// Experiments register themselves at static-initialisation time, Google
// Benchmark style; the workloads library is linked as object files so the
// linker keeps every registration.
#include <memory>
#include <string>
#include <vector>

#include "harness/experiment.h"

namespace optbench {

class Registry {
 public:
  static Registry& instance();
  bool add(std::unique_ptr<Experiment> e);  // throws on a duplicate name
  const std::vector<std::unique_ptr<Experiment>>& all() const { return experiments_; }
  std::vector<std::string> names() const;
  // Experiments whose name matches the ECMAScript regex (search, not full match,
  // like Google Benchmark's --benchmark_filter). Throws on a bad regex.
  std::vector<const Experiment*> match(const std::string& regex) const;

 private:
  std::vector<std::unique_ptr<Experiment>> experiments_;
};

}  // namespace optbench

#define OPTBENCH_REGISTER_EXPERIMENT(Type) \
  static const bool optbench_registered_##Type = ::optbench::Registry::instance().add(std::make_unique<Type>())
