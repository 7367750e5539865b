#include "tests/isolation_probe.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace optbench::testing {
namespace {

bool g_process_used = false;  // set by the first workload built in this process

class ProbeWork final : public Workload {
 public:
  // case_draw: what cases() drew from the default generator; draw_: what this
  // variant's build draws.
  ProbeWork(bool crash, double case_draw)
      : fresh_(!g_process_used), crash_(crash), case_draw_(case_draw), draw_(at::randn({1}).item<double>()) {
    g_process_used = true;
  }
  void step() override {
    if (crash_) std::abort();  // a worker that dies mid-run
    // A cold first step: only the first step of a fresh process is slow.
    if (acc_ == 0 && fresh_) std::this_thread::sleep_for(std::chrono::milliseconds(kColdFirstStepMs));
    acc_ += 1;
  }
  at::Tensor output() override { return at::ones({3}); }
  nlohmann::json metrics() override {
    return {{"pid", getpid()}, {"fresh_process", fresh_}, {"case_draw", case_draw_}, {"draw", draw_}};
  }

 private:
  bool fresh_, crash_;
  double case_draw_, draw_;
  double acc_ = 0;
};

class IsolationProbe final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"isolation_probe", "process isolation probe", "none", {}, "test only"};
  }
  std::vector<Case> cases(const RunContext&) const override {
    Case c;
    c.name = "probe";
    c.isolate = true;
    c.cold_first_step = true;  // its first step is cold in a fresh process (step())
    const double d = at::randn({1}).item<double>();
    c.params = {{"case_draw", d}};
    c.tolerance = Tolerance{};
    c.variants = {Variant{"a", "", [d] { return std::make_unique<ProbeWork>(false, d); }},
                  Variant{"b", "", [d] { return std::make_unique<ProbeWork>(false, d); }}};
    Case crash = c;
    crash.name = "crash";
    crash.variants.push_back(Variant{"dies", "", [d] { return std::make_unique<ProbeWork>(true, d); }});
    return {c, crash};
  }
};

}  // namespace

std::unique_ptr<Experiment> make_isolation_probe() { return std::make_unique<IsolationProbe>(); }

}  // namespace optbench::testing
