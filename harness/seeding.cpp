#include "harness/seeding.h"

#include <ATen/Context.h>

namespace optbench {
namespace {

void reseed_default_generators() { at::manual_seed(kDataSeed); }

}  // namespace

std::vector<Case> build_cases(const Experiment& e, const RunContext& ctx) {
  reseed_default_generators();
  return e.cases(ctx);
}

std::unique_ptr<Workload> build_workload(const Variant& v) {
  reseed_default_generators();
  return v.make();
}

}  // namespace optbench
