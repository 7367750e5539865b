// The fused_optimizer experiment on the CPU: the three AdamW implementations
// compute the same update (they pass verification against each other), and a
// planted wrong learning rate in one variant fails it; the same for its Python twin.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <vector>

#include "harness/build_info.h"
#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/registry.h"
#include "workloads/training/optimizer_cases.h"

using namespace optbench;
using namespace optbench::workloads;
using json = nlohmann::json;

namespace {

json run_on_cpu(const Case& c) {
  auto backend = make_backend(DeviceKind::cpu);
  MeasureConfig cfg = measure_config_for(RunProfile::quick);
  cfg.warmup_min_s = 0.01;
  cfg.warmup_max_s = 0.05;
  cfg.stopping = {6, 0.01, 0.5, 100000, 0.5, 0.95};
  std::atomic<bool> stop{false};
  return to_json(run_case(c, *backend, cfg, CaseLimits{2.0, std::nullopt}, stop));
}

std::string status_of(const json& r, const std::string& variant) {
  for (const auto& cm : r.at("comparisons"))
    if (cm.at("variant") == variant) return cm.at("verification").value("status", "");
  return "missing";
}

}  // namespace

TEST(FusedOptimizer, EveryImplementationComputesTheSameUpdate) {
  for (bool train : {false, true}) {
    const json r = run_on_cpu(fused_optimizer_case(optimizer_mlp(8, 16, 4), train, DeviceKind::cpu, {AdamWConfig{}}));
    ASSERT_EQ(r.at("status"), "ok") << r.dump();
    EXPECT_EQ(status_of(r, "foreach"), "passed") << r.dump();
    EXPECT_EQ(status_of(r, "fused"), "passed") << r.dump();
  }
}

TEST(FusedOptimizer, APlantedWrongLearningRateFails) {
  AdamWConfig wrong;
  wrong.lr *= 1.01;
  const json r = run_on_cpu(
      fused_optimizer_case(optimizer_mlp(8, 16, 4), false, DeviceKind::cpu, {AdamWConfig{}, AdamWConfig{}, wrong}));
  EXPECT_EQ(status_of(r, "foreach"), "passed") << r.dump();
  EXPECT_EQ(status_of(r, "fused"), "failed") << r.dump();
}

TEST(FusedOptimizer, AFewLargeTensorsCountTheirBytes) {
  const Case c = fused_optimizer_case(optimizer_two_large(32), false, DeviceKind::cpu, {AdamWConfig{}});
  EXPECT_EQ(c.params["parameter_tensors"], 2);
  EXPECT_EQ(c.params["parameter_elements"], 2 * 32 * 32);
  EXPECT_DOUBLE_EQ(c.units.bytes, 28.0 * 2 * 32 * 32);
}

// The Python twin (torch.optim.AdamW in the build's Python): its three
// implementations agree, and a planted wrong learning rate in one fails.
TEST(FusedOptimizer, ThePythonTwinsImplementationsComputeTheSameUpdate) {
  const json r = run_on_cpu(python_optimizer_case(optimizer_mlp(4, 16, 4), DeviceKind::cpu, {AdamWConfig{}}, 2));
  ASSERT_EQ(r.at("status"), "ok") << r.dump();
  EXPECT_EQ(status_of(r, "python_foreach"), "passed") << r.dump();
  EXPECT_EQ(status_of(r, "python_fused"), "passed") << r.dump();
  for (const auto& v : r.at("variants")) EXPECT_EQ(v.at("params").at("runtime"), "python") << v.dump();
}

TEST(FusedOptimizer, APlantedWrongLearningRateFailsThePythonTwin) {
  AdamWConfig wrong;
  wrong.lr *= 1.01;
  const json r = run_on_cpu(
      python_optimizer_case(optimizer_mlp(4, 16, 4), DeviceKind::cpu, {AdamWConfig{}, AdamWConfig{}, wrong}, 2));
  EXPECT_EQ(status_of(r, "python_foreach"), "passed") << r.dump();
  EXPECT_EQ(status_of(r, "python_fused"), "failed") << r.dump();
}

// A GPU's fused step is ~0.1-0.3 ms: a twin request of one to five of them would
// leave the pipe's round trip and the request's synchronize 5-20% of the fastest
// variant's time, shrinking every speedup alike. Built for CUDA (nothing runs: the
// cases' variants build their workloads only when run), each twin request holds
// 20 optimizer steps.
TEST(FusedOptimizer, OnAGpuEachTwinRequestHoldsEnoughStepsToHideThePipe) {
  const Experiment* e = Registry::instance().match("^fused_optimizer$").at(0);
  for (RunProfile p : {RunProfile::quick, RunProfile::standard}) {
    std::size_t twins = 0;
    for (const Case& c : e->cases(RunContext{DeviceKind::cuda, p})) {
      if (!c.params.contains("optimizer_steps_per_step")) continue;
      ++twins;
      EXPECT_GE(c.params["optimizer_steps_per_step"].get<int>(), 20) << c.name;
    }
    EXPECT_EQ(twins, p == RunProfile::quick ? 1u : 2u);
  }
}

// The kernel_fusion claim (report/claims/claims.json) names the models of its
// many-small-tensors case: on each device the experiment's own (a CPU's 32 layers
// of 64, a GPU's 64 of 256), or a GPU run's verdict would find no comparison.
TEST(FusedOptimizer, TheKernelFusionClaimNamesTheManyTensorCaseOfEveryDevice) {
  std::ifstream in(source_dir() + "/report/claims/claims.json");
  ASSERT_TRUE(in) << "no claims.json under " << source_dir();
  const json doc = json::parse(in);
  const json& claims = doc.is_object() ? doc.at("claims") : doc;
  const auto it =
      std::find_if(claims.begin(), claims.end(), [](const json& c) { return c.at("id") == "kernel_fusion"; });
  ASSERT_NE(it, claims.end());
  std::vector<json> matches = {it->at("match")};
  for (const auto& b : it->value("beside", json::array())) matches.push_back(b.at("match"));
  const Experiment* e = Registry::instance().match("^fused_optimizer$").at(0);
  for (DeviceKind d : {DeviceKind::cpu, DeviceKind::cuda}) {
    const std::vector<Case> cases = e->cases(RunContext{d, RunProfile::standard});
    const Case* many = nullptr;  // the step-alone case with the most tensors
    for (const Case& c : cases)
      if (c.params.value("mode", "") == "AdamW step alone" &&
          (!many || c.params.at("parameter_tensors") > many->params.at("parameter_tensors")))
        many = &c;
    ASSERT_NE(many, nullptr);
    for (const json& m : matches) {
      const json& named = m.at("case_params").at("model");
      const json model = many->params.at("model");
      const bool holds =
          named.is_array() ? std::find(named.begin(), named.end(), model) != named.end() : named == model;
      EXPECT_TRUE(holds) << to_string(d) << ": claims.json names " << named.dump() << ", the case is " << model.dump();
    }
  }
}
