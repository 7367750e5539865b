// cudnn_benchmark's derived one-time costs from a synthetic result (the
// experiment itself needs a GPU; its cases are built on the CPU here only to
// reach their derive function).
#include <gtest/gtest.h>

#include "harness/case_result.h"
#include "harness/registry.h"

using namespace optbench;

namespace {

Case fixed_shape_case() {
  const Experiment* e = Registry::instance().match("^cudnn_benchmark$").at(0);
  return e->cases(RunContext{DeviceKind::cpu, RunProfile::quick}).at(0);
}

VariantResult variant(std::string name, double median, double first_run, std::vector<double> cold) {
  VariantResult v;
  v.name = std::move(name);
  v.process = ProcessKind::fresh;
  v.stats = Summary{};
  v.stats->median = median;
  v.first_run_s = first_run;
  v.cold_first_runs_s = std::move(cold);
  return v;
}

}  // namespace

TEST(CudnnBenchmark, BreakEvenFromTheColdFirstStepsMedians) {
  const Case c = fixed_shape_case();
  ASSERT_TRUE(c.derive);
  CaseResult r;
  r.variants = {variant("benchmark_off", 0.10, 9.0, {2.0, 3.0, 4.0}), variant("benchmark_on", 0.08, 9.0, {5.0, 6.0})};
  const auto d = c.derive(r);
  EXPECT_DOUBLE_EQ(d.at("autotune_first_step_extra_s").get<double>(), 2.5) << "medians 5.5 and 3, not first_run_s";
  EXPECT_DOUBLE_EQ(d.at("first_step_extra_s").get<double>(), 5.5 - 0.08);
  EXPECT_DOUBLE_EQ(d.at("steady_gain_per_step_s").get<double>(), 0.10 - 0.08);
  EXPECT_NEAR(d.at("break_even_steps").get<double>(), 2.5 / 0.02, 1e-9);
  EXPECT_EQ(d.at("first_step_processes"), 2) << "the fewer either median rests on";
  EXPECT_EQ(d.at("first_steps"), "cold: median of 2 fresh processes per variant");

  // Without cold processes, the timed first steps; shared: warm.
  for (auto& v : r.variants) {
    v.cold_first_runs_s.clear();
    v.process = ProcessKind::shared;
  }
  r.variants[1].first_run_s = 12.0;
  const auto warm = c.derive(r);
  EXPECT_DOUBLE_EQ(warm.at("autotune_first_step_extra_s").get<double>(), 3.0);
  EXPECT_EQ(warm.at("first_step_processes"), 1);
  EXPECT_EQ(warm.at("first_steps"), "warm");
  r.variants[1].stats->median = 0.2;  // slower with benchmark mode: it never pays off
  EXPECT_TRUE(c.derive(r).at("break_even_steps").is_null());
  r.variants[1].stats.reset();  // benchmark_on failed
  EXPECT_TRUE(c.derive(r).empty());
}
