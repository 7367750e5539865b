#include "tests/crash_probe.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness/scratch_dir.h"

namespace optbench::testing {
namespace {

class Work final : public Workload {
 public:
  explicit Work(bool dies) : dies_(dies) {}
  void step() override {
    if (dies_ && first_time()) dies_ = false;
    if (dies_) {
      // What a workload's temporary files would be: only the suite can remove them now.
      if (FILE* f = std::fopen((scratch_parent() + "/crash_probe.leftover").c_str(), "w")) std::fclose(f);
      std::fprintf(stderr, "crash_probe: the last line before the crash\n");
      std::fflush(stderr);
      // OPTBENCH_CRASH_PROBE=hang: stuck instead of dead (deaf to the interrupt, as a
      // process blocked in a driver call would be).
      if (const char* m = std::getenv("OPTBENCH_CRASH_PROBE"); m && std::strcmp(m, "hang") == 0)
        for (;;) ::pause();
      std::raise(SIGSEGV);
    }
    acc_ += 1;
  }
  at::Tensor output() override { return at::ones({3}); }

 private:
  // OPTBENCH_CRASH_PROBE=later:PATH: the first process to get here leaves PATH
  // and lives; a later one (a further process of the run) dies.
  static bool first_time() {
    const char* m = std::getenv("OPTBENCH_CRASH_PROBE");
    if (!m || std::strncmp(m, "later:", 6) != 0) return false;
    if (::access(m + 6, F_OK) == 0) return false;
    if (FILE* f = std::fopen(m + 6, "w")) std::fclose(f);
    return true;
  }
  bool dies_;
  double acc_ = 0;
};

class CrashProbe final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"crash_probe", "crash isolation probe", "none", {}, "test only", {DeviceKind::cpu}};
  }
  std::vector<Case> cases(const RunContext&) const override {
    Case first;
    first.name = "first";
    first.tolerance = Tolerance{};
    first.variants = {Variant{"a", "", [] { return std::make_unique<Work>(false); }},
                      Variant{"b", "", [] { return std::make_unique<Work>(false); }}};
    Case dies = first;
    dies.name = "dies";
    dies.variants[1] = Variant{"b", "", [] { return std::make_unique<Work>(true); }};
    Case after = first;
    after.name = "after";
    return {first, dies, after};
  }
};

}  // namespace

std::unique_ptr<Experiment> make_crash_probe() { return std::make_unique<CrashProbe>(); }

}  // namespace optbench::testing
