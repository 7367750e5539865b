// The autocast guard and the gradient scaler (LibTorch has neither): the guard
// nests, restores and clears the cast cache like Python's torch.autocast; the
// scaler backs off on inf/NaN, skips that step, and grows after the interval.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/compat/autocast.h"
#include "workloads/training/grad_scaler.h"

using namespace optbench;
using namespace optbench::workloads;

TEST(AutocastGuard, EnablesNestsAndRestores) {
  const auto cpu = c10::DeviceType::CPU;
  ASSERT_FALSE(compat::autocast_enabled(cpu));
  {
    compat::AutocastGuard outer(cpu, torch::kBFloat16);
    EXPECT_TRUE(compat::autocast_enabled(cpu));
    EXPECT_EQ(compat::autocast_dtype(cpu), torch::kBFloat16);
    auto a = torch::randn({4, 4}), b = torch::randn({4, 4});
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);  // mm is on the lower-precision list
    {
      compat::AutocastGuard off(cpu, torch::kBFloat16, /*enabled=*/false);
      EXPECT_FALSE(compat::autocast_enabled(cpu));
      EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat);
    }
    EXPECT_TRUE(compat::autocast_enabled(cpu));
  }
  EXPECT_FALSE(compat::autocast_enabled(cpu));
}

// Without clearing the cache on exit, a weight updated in place between two
// autocast regions would still be read from its stale low-precision copy.
TEST(AutocastGuard, ClearsTheCastCacheWhenTheOutermostGuardEnds) {
  const auto cpu = c10::DeviceType::CPU;
  auto w = torch::ones({4, 4}, torch::requires_grad());  // leaf that requires grad: cached when cast
  auto x = torch::ones({4, 4});
  torch::Tensor first, second;
  {
    compat::AutocastGuard g(cpu, torch::kBFloat16);
    first = torch::mm(x, w).to(torch::kFloat);
  }
  {
    torch::NoGradGuard ng;
    w.mul_(2);
  }
  {
    compat::AutocastGuard g(cpu, torch::kBFloat16);
    second = torch::mm(x, w).to(torch::kFloat);
  }
  EXPECT_TRUE(torch::allclose(second, first * 2));
}

TEST(AutocastGuard, RefusesWhatAutocastCannotDo) {
  EXPECT_TRUE(compat::autocast_supports(c10::DeviceType::CPU, torch::kHalf));
  EXPECT_TRUE(compat::autocast_supports(c10::DeviceType::CPU, torch::kBFloat16));
  EXPECT_THROW(compat::AutocastGuard(c10::DeviceType::CPU, torch::kDouble), std::invalid_argument);
  EXPECT_FALSE(compat::autocast_enabled(c10::DeviceType::CPU));
}

TEST(GradScaler, UnscalesAndFlagsNonFinite) {
  std::vector<torch::Tensor> grads = {torch::full({3}, 8.0), torch::full({2}, 4.0)};
  auto found = torch::zeros({1});
  GradScaler::non_finite_check_and_unscale(grads, found, torch::full({1}, 0.25));
  EXPECT_EQ(found.item<float>(), 0.0f);
  EXPECT_TRUE(torch::allclose(grads[0], torch::full({3}, 2.0)));
  grads[1][0] = std::numeric_limits<float>::infinity();
  GradScaler::non_finite_check_and_unscale(grads, found, torch::full({1}, 1.0));
  EXPECT_EQ(found.item<float>(), 1.0f);
}

TEST(GradScaler, BacksOffOnInfAndGrowsAfterTheInterval) {
  auto scale = torch::full({1}, 1024.0f);
  auto tracker = torch::zeros({1}, torch::kInt);
  const auto inf = torch::ones({1}), clean = torch::zeros({1});
  GradScaler::update_scale(scale, tracker, inf, 2.0, 0.5, 3);
  EXPECT_FLOAT_EQ(scale.item<float>(), 512.0f);
  EXPECT_EQ(tracker.item<int>(), 0);
  for (int i = 0; i < 2; ++i) GradScaler::update_scale(scale, tracker, clean, 2.0, 0.5, 3);
  EXPECT_FLOAT_EQ(scale.item<float>(), 512.0f);
  EXPECT_EQ(tracker.item<int>(), 2);
  GradScaler::update_scale(scale, tracker, clean, 2.0, 0.5, 3);  // third clean step: grow
  EXPECT_FLOAT_EQ(scale.item<float>(), 1024.0f);
  EXPECT_EQ(tracker.item<int>(), 0);
}

TEST(GradScaler, SkipsTheStepWhenAGradientOverflowed) {
  torch::manual_seed(0);
  auto lin = torch::nn::Linear(4, 1);
  torch::optim::SGD opt(lin->parameters(), 0.1);
  GradScalerOptions o;
  o.init_scale = 8.0;
  o.growth_interval = 2;
  GradScaler scaler(o);
  const auto before = lin->weight.clone();

  auto loss = lin(torch::ones({2, 4})).sum();
  scaler.scale(loss).backward();
  lin->weight.mutable_grad()[0][0] = std::numeric_limits<float>::quiet_NaN();  // injected overflow
  EXPECT_FALSE(scaler.step(opt));
  scaler.update();
  EXPECT_TRUE(torch::equal(lin->weight, before));  // skipped
  EXPECT_DOUBLE_EQ(scaler.get_scale(), 4.0);       // backed off

  for (int i = 0; i < 2; ++i) {
    opt.zero_grad();
    scaler.scale(lin(torch::ones({2, 4})).sum()).backward();
    EXPECT_TRUE(scaler.step(opt));
    scaler.update();
  }
  EXPECT_FALSE(torch::equal(lin->weight, before));
  EXPECT_DOUBLE_EQ(scaler.get_scale(), 8.0);  // grew after growth_interval clean steps
  // The step used unscaled gradients: d(sum)/dw = 2 per element, lr 0.1, two steps.
  EXPECT_TRUE(torch::allclose(lin->weight, before - 0.4, 1e-5, 1e-5));
}
