// Planted faults: each breaks a training variant on purpose, the way real
// mistakes do, and its verification must fail; the same variant without the
// fault must pass. A check that passes the faulty variant judges nothing.
// On the CPU: a small conv net with BatchNorm (so channels_last and the
// autocast weight cache have something to act on), fp32 baseline.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "workloads/models/resnet.h"
#include "workloads/training/verify_losses.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

torch::nn::Sequential small_convnet() {
  namespace nn = torch::nn;
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).padding(1)), nn::BatchNorm2d(16), nn::ReLU(),
                        nn::Conv2d(nn::Conv2dOptions(16, 32, 3).stride(2).padding(1)), nn::BatchNorm2d(32), nn::ReLU(),
                        nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(32, 10));
}

const NetFactory kNet = [] {
  torch::manual_seed(0);
  return make_net(small_convnet());
};

const BatchSource kBatches = [](std::int64_t i) {
  auto gen = at::detail::createCPUGenerator(100 + static_cast<std::uint64_t>(i));
  return std::make_pair(at::randn({16, 3, 16, 16}, gen), at::randint(0, 10, {16}, gen, torch::kLong));
};

TrainOptions opts(Precision p, PlantedFault f = PlantedFault::none, bool channels_last = false) {
  TrainOptions o;
  o.precision = p;
  o.channels_last = channels_last;
  o.fault = f;
  return o;
}

// The check result of `variant` against an fp32 baseline, printed for whoever reads a failure.
CheckResult check(const TrainOptions& variant, const NetFactory& net = kNet) {
  TrainStep base(net, kBatches, opts(Precision::fp32), torch::kCPU);
  TrainStep var(net, kBatches, variant, torch::kCPU);
  std::vector<Workload*> ws = {&base, &var};
  CheckResult v = verify_loss_traces(ws);
  std::cout << to_string(variant.precision) << " fault " << static_cast<int>(variant.fault) << ": "
            << (v.problem.empty() ? "passed" : v.problem) << "\n  " << v.details.dump() << "\n";
  return v;
}

bool judged(const CheckResult& v, const std::string& what) {
  const auto& j = v.details.value("judged", nlohmann::json::array());
  return std::find(j.begin(), j.end(), what) != j.end();
}

}  // namespace

TEST(PlantedFaults, CleanVariantsPassWithTheFitJudged) {
  for (const auto& o : {opts(Precision::fp32), opts(Precision::amp_bf16), opts(Precision::amp_fp16),
                        opts(Precision::fp32, PlantedFault::none, true)}) {
    const CheckResult v = check(o);
    EXPECT_EQ(v.problem, "") << to_string(o.precision);
    EXPECT_TRUE(judged(v, "fit")) << v.details.dump();
    EXPECT_TRUE(judged(v, "first_loss"));
  }
}

// The failure seen once for real: conv and linear weights cast once and never
// again. Only BatchNorm's parameters still move the forward pass, so the fit
// lags the baseline's by about two thirds of its drop.
TEST(PlantedFaults, StaleAutocastWeightCacheFails) {
  const CheckResult v = check(opts(Precision::amp_bf16, PlantedFault::stale_autocast_cache));
  EXPECT_NE(v.problem, "");
  EXPECT_GT(v.details["fit_gap_of_baseline_drop"].get<double>(), kFitBand) << v.details.dump();
}

TEST(PlantedFaults, GradScalerThatNeverUnscalesFails) {
  EXPECT_NE(check(opts(Precision::amp_fp16, PlantedFault::scaler_never_unscales)).problem, "");
}

TEST(PlantedFaults, GradScalerThatNeverStepsFails) {
  const CheckResult v = check(opts(Precision::amp_fp16, PlantedFault::scaler_never_steps));
  EXPECT_NE(v.problem.find("does not learn"), std::string::npos) << v.problem;
}

// The logits' gradient scaled by 2^kLog2 on its way back (the forward untouched).
template <int kLog2>
struct GrowGradBy : torch::autograd::Function<GrowGradBy<kLog2>> {
  static torch::Tensor forward(torch::autograd::AutogradContext*, const torch::Tensor& x) { return x.clone(); }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*, torch::autograd::variable_list g) {
    return {g[0] * std::ldexp(1.0, kLog2)};
  }
};

template <int kLog2>
NetFactory with_grads_grown() {
  return [] {
    torch::manual_seed(0);
    auto m = small_convnet();
    return Net{m.ptr(), [m](const torch::Tensor& x) mutable { return GrowGradBy<kLog2>::apply(m->forward(x)); }};
  };
}

// Gradients that fp16 cannot hold: the logits' gradient shrunk by 2^-16 on its
// way back (forward untouched), as in a deep or small-loss model. fp32 holds
// them and Adam's normalisation makes full-size steps of them; fp16 without a
// scaler flushes most of them to zero (the fit then falls by 0.013 against
// 0.039); the GradScaler (2^10 in the fit) lifts them back (within 1e-4 of the
// baseline's drop).
TEST(PlantedFaults, Fp16WithoutScalerWhereGradientsUnderflowFails) {
  EXPECT_EQ(check(opts(Precision::amp_fp16), with_grads_grown<-16>()).problem, "");
  EXPECT_NE(check(opts(Precision::amp_fp16, PlantedFault::fp16_without_scaler), with_grads_grown<-16>()).problem, "");
}

TEST(PlantedFaults, SkippedOptimizerStepFails) {
  const CheckResult v = check(opts(Precision::fp32, PlantedFault::skip_optimizer_step));
  EXPECT_NE(v.problem.find("does not learn"), std::string::npos) << v.problem;
}

TEST(PlantedFaults, ScrambledChannelsLastConversionFails) {
  const CheckResult v = check(opts(Precision::fp32, PlantedFault::scrambled_channels_last, true));
  EXPECT_NE(v.problem, "");
  EXPECT_TRUE(judged(v, "first_logits")) << v.details.dump();
}

// A model that learns its batch in one step (batch_size's CPU net: one
// Bottleneck per stage, 32 px): the baseline's fit ends early, every variant
// runs as many updates, and the faults fail on the short fit. The short fit is
// the stronger one here: the stale cache lags the baseline by 0.42 of its drop
// after one update, 0.27 after two, 0.07 (inside the band) after eight.
TEST(PlantedFaults, ShortFitOfAFastLearnerCatchesTheFaults) {
  const NetFactory fast = [] {
    torch::manual_seed(0);
    return make_net(ResNet(std::vector<std::int64_t>{1, 1, 1, 1}, 10));
  };
  auto gen = at::detail::createCPUGenerator(200);
  const auto xy = std::make_pair(at::randn({8, 3, 32, 32}, gen), at::randint(0, 10, {8}, gen, torch::kLong));
  const BatchSource batch = [xy](std::int64_t) { return xy; };
  TrainStep base(fast, batch, opts(Precision::fp32), torch::kCPU);
  auto run = [&](const TrainOptions& o) {
    TrainStep var(fast, batch, o, torch::kCPU);
    std::vector<Workload*> ws = {&base, &var};
    CheckResult v = verify_loss_traces(ws);
    std::cout << to_string(o.precision) << " fault " << static_cast<int>(o.fault) << ": "
              << (v.problem.empty() ? "passed" : v.problem) << "\n  " << v.details.dump() << "\n";
    EXPECT_TRUE(judged(v, "fit")) << v.details.dump();
    return v;
  };
  const CheckResult clean = run(opts(Precision::amp_bf16));
  EXPECT_EQ(clean.problem, "");
  EXPECT_LT(clean.details["fit_steps"].get<int>(), TrainStep::kFitSteps) << "the fit did not end early";
  EXPECT_GE(clean.details["baseline_fit_loss_drop"].get<double>(), kFitClearDrop);
  // Each fault's own fit figure, whatever check fails first.
  EXPECT_GT(run(opts(Precision::amp_bf16, PlantedFault::stale_autocast_cache))
                .details["fit_gap_of_baseline_drop"]
                .get<double>(),
            kFitBand);
  EXPECT_LT(run(opts(Precision::amp_fp16, PlantedFault::scaler_never_steps)).details["fit_loss_drop"].get<double>(),
            kFitMinDrop);
  EXPECT_LT(run(opts(Precision::fp32, PlantedFault::skip_optimizer_step)).details["fit_loss_drop"].get<double>(),
            kFitMinDrop);
}

// An update the GradScaler skips (an overflow at its scale, as Python's skips
// the first steps at 2^16) is no update: the trace and the fit count the
// updates taken, so a correct fp16 variant whose first steps overflow is not
// judged as learning slower or leaving float64's trace (it was: trace 0.51
// off, before). Gradients grown by 2^12 on their way back overflow fp16 at the
// scale of 2^10 the trace and the fit start from, until the scaler has backed off.
TEST(PlantedFaults, UpdatesTheScalerSkipsAreNotCounted) {
  const CheckResult v = check(opts(Precision::amp_fp16), with_grads_grown<12>());
  EXPECT_EQ(v.problem, "");
  EXPECT_GT(v.details["fit_skipped_updates"].get<int>(), 0) << "nothing overflowed: the test tests nothing";
  EXPECT_GT(v.details["trace_skipped_updates"].get<int>(), 0);
  EXPECT_EQ(v.details["fit_steps"].get<int>(), TrainStep::kFitSteps);
  EXPECT_LT(v.details["fit_gap_of_baseline_drop"].get<double>(), 0.05);
}

// Skipped updates are run again only so often: gradients fp16 cannot hold at
// any scale the scaler backs off to (2^40 larger) leave a variant that never
// trains, and that fails.
TEST(PlantedFaults, AScalerThatSkipsEveryUpdateFails) {
  const CheckResult v = check(opts(Precision::amp_fp16), with_grads_grown<40>());
  EXPECT_NE(v.problem.find("skipped every update"), std::string::npos) << v.problem;
}
