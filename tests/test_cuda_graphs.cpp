// The CUDA graphs experiment where no GPU is: it reports itself unsupported with
// a reason; its eager step trains on the CPU; the trace check passes a faithful
// step and fails the ways a captured step goes wrong (replays reading the
// capture-time input, the optimizer step left out of the graph, gradients
// accumulated across replays because they were not None before capture); and
// the derived launch-overhead figures. The capture itself needs a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <regex>

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/training/sgd_trainer.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

const Experiment& experiment() { return *Registry::instance().match("^cuda_graphs$").at(0); }

const RunContext kCpu{DeviceKind::cpu, RunProfile::quick};
constexpr int kSteps = 6;    // the experiment's trace: 3 warm-up + 3 replayed steps
constexpr int kCapture = 3;  // the step that is captured (never run itself)

SgdSpec tiny_spec() {
  SgdSpec s;
  s.factory = [] {
    torch::manual_seed(0);
    return make_net(torch::nn::Sequential(torch::nn::Linear(8, 16), torch::nn::GELU(), torch::nn::Linear(16, 4)));
  };
  for (int k = 0; k < 4; ++k) {
    auto gen = at::detail::createCPUGenerator(10 + k);
    s.batches.emplace_back(at::randn({6, 8}, gen),
                           at::randint(4, {6}, gen, torch::TensorOptions().dtype(torch::kLong)));
  }
  return s;
}

// A trace whose steps from kCapture on are done by `replayed` instead of a
// faithful step: what a broken capture would train.
StepTrace faulty_trace(const SgdSpec& spec, const std::function<torch::Tensor(SgdTrainer&, int)>& replayed) {
  SgdTrainer t(spec, torch::kCPU, /*track_updates=*/true);
  std::vector<torch::Tensor> losses;
  for (int i = 0; i < kSteps; ++i) {
    const auto& b = spec.batch(i);
    losses.push_back(i < kCapture ? t.step(b.first, b.second) : replayed(t, i));
  }
  return {torch::stack(losses).to(torch::kDouble), t.update_norms()};
}

}  // namespace

TEST(CudaGraphs, UnsupportedOnCpuWithAReason) {
  EXPECT_EQ(experiment().unsupported_reason(kCpu), "CUDA graphs need a GPU");
  const auto info = experiment().info();
  EXPECT_EQ(info.devices, std::vector<DeviceKind>{DeviceKind::cuda});
  EXPECT_NE(std::find(info.claims.begin(), info.claims.end(), "cuda_graphs"), info.claims.end());
}

TEST(CudaGraphs, CasesPairEagerWithAGraphVariantTheClaimMatches) {
  const auto cases = experiment().cases(kCpu);
  ASSERT_EQ(cases.size(), 2u);  // launch-bound and not
  for (const Case& c : cases) {
    ASSERT_EQ(c.variants.size(), 2u) << c.name;
    EXPECT_EQ(c.variants[0].name, "eager");
    EXPECT_TRUE(std::regex_search(c.variants[1].name, std::regex("^graph"))) << c.variants[1].name;
    EXPECT_FALSE(c.hold_stream) << "holding the stream would hide the launch cost being measured";
    EXPECT_TRUE(c.verify);
    EXPECT_TRUE(c.derive);
  }
}

TEST(CudaGraphs, EagerStepTrainsAndVerifiesAgainstItself) {
  for (const Case& c : experiment().cases(kCpu)) {
    auto a = c.variants[0].make(), b = c.variants[0].make();
    for (int i = 0; i < 3; ++i) a->step();  // timed steps leave the trace (fresh weights) unchanged
    auto* traced = dynamic_cast<TracedStep*>(a.get());
    ASSERT_NE(traced, nullptr);
    const StepTrace t = traced->trace();
    EXPECT_EQ(t.losses.numel(), kSteps) << c.name;
    EXPECT_TRUE(t.losses.isfinite().all().item<bool>()) << c.name;
    EXPECT_GT(t.update_norms.min().item<double>(), 0) << c.name << ": every parameter trains";
    std::vector<Workload*> pair = {a.get(), b.get()};
    EXPECT_EQ(c.verify(pair).problem, "") << c.name;
  }
}

TEST(CudaGraphs, GraphVariantNeedsACudaDevice) {
  const auto cases = experiment().cases(kCpu);
  EXPECT_THROW(cases[0].variants[1].make(), std::exception);
}

TEST(CudaGraphs, TraceCheckToleratesFp32Rounding) {
  const auto spec = tiny_spec();
  const StepTrace base = eager_trace(spec, torch::kCPU, kSteps);
  StepTrace close{base.losses * (1 + 1e-6), base.update_norms * (1 - 1e-5)};
  EXPECT_EQ(compare_traces(base, close, TraceTolerance{}), "");
  EXPECT_EQ(compare_traces(base, eager_trace(spec, torch::kCPU, kSteps), TraceTolerance{}), "");
}

TEST(CudaGraphs, TraceCheckCatchesReplaysReadingTheCaptureTimeInput) {
  const auto spec = tiny_spec();
  const StepTrace base = eager_trace(spec, torch::kCPU, kSteps);
  // The static input still holds the last warm-up batch: the copy-in was lost.
  const StepTrace stale = faulty_trace(spec, [&](SgdTrainer& t, int) {
    const auto& b = spec.batch(kCapture - 1);
    return t.step(b.first, b.second);
  });
  EXPECT_NE(compare_traces(base, stale, TraceTolerance{}), "");
}

TEST(CudaGraphs, TraceCheckCatchesAnOptimizerStepLeftOutOfTheGraph) {
  const auto spec = tiny_spec();
  const StepTrace base = eager_trace(spec, torch::kCPU, kSteps);
  const StepTrace no_update = faulty_trace(spec, [&](SgdTrainer& t, int i) {
    const auto& b = spec.batch(i);
    t.zero_grad();
    auto l = t.loss(b.first, b.second);
    l.backward();
    return l.detach();
  });
  EXPECT_NE(compare_traces(base, no_update, TraceTolerance{}), "");
  // The distance the weights moved shows it too, whatever the losses say.
  EXPECT_NE(compare_traces(base, no_update, TraceTolerance{1e9, 1e-3}), "");
}

TEST(CudaGraphs, TraceCheckCatchesGradientsAccumulatedAcrossReplays) {
  const auto spec = tiny_spec();
  const StepTrace base = eager_trace(spec, torch::kCPU, kSteps);
  // Gradients that were not None at capture are accumulated into by every replay.
  const StepTrace accumulated = faulty_trace(spec, [&](SgdTrainer& t, int i) {
    const auto& b = spec.batch(i);
    auto l = t.loss(b.first, b.second);
    l.backward();
    t.optimizer().step();
    return l.detach();
  });
  EXPECT_NE(compare_traces(base, accumulated, TraceTolerance{}), "");
  EXPECT_NE(compare_traces(base, accumulated, TraceTolerance{1e9, 1e-3}), "");
}

TEST(CudaGraphs, DeriveReportsOverheadSavedAndBreakEven) {
  const Case c = experiment().cases(kCpu).at(0);
  auto variant = [](std::string name, double median) {
    VariantResult v;
    v.name = std::move(name);
    v.stats = Summary{};
    v.stats->median = median;
    return v;
  };
  CaseResult r;
  r.variants = {variant("eager", 2e-3), variant("graph_replay", 5e-4)};
  r.variants[1].metrics = {{"capture_s", 0.03}};
  const auto d = c.derive(r);
  EXPECT_DOUBLE_EQ(d["saved_per_step_s"].get<double>(), 1.5e-3);
  EXPECT_DOUBLE_EQ(d["eager_over_graph"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(d["saved_fraction_of_eager_step"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(d["break_even_steps"].get<double>(), 20.0);

  r.variants[1].stats->median = 3e-3;  // slower: capture never pays off
  EXPECT_TRUE(c.derive(r)["break_even_steps"].is_null());
  r.variants[1].stats.reset();  // the graph variant failed
  EXPECT_TRUE(c.derive(r).empty());
}
