// Training-loop experiments on the CPU: gradient accumulation reproduces the
// large batch's gradients (and the forgotten "/ k" is caught), zero_grad does
// what each mode says, the host-sync loop reads the loss as often as it claims,
// and the loss computed on the host or the device gives the same training.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/compat/zero_grad.h"
#include "harness/registry.h"
#include "harness/verify.h"
#include "workloads/models/transformer.h"
#include "workloads/training/accumulate_step.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

struct TinyGpt {
  GptConfig g{2, 64, 2, 16, 128};
  std::int64_t batch = 8;
  torch::Tensor x, y;
  NetFactory factory;
  TinyGpt() {
    torch::manual_seed(3);
    x = torch::randint(0, g.vocab, {batch, g.seq}, torch::kLong);
    y = torch::randint(0, g.vocab, {batch, g.seq}, torch::kLong);
    const GptConfig c = g;
    factory = [c] {
      torch::manual_seed(0);
      return make_net(Gpt(c));
    };
  }
  std::unique_ptr<AccumulateStep> make(std::int64_t k, bool divide = true) const {
    return std::make_unique<AccumulateStep>(factory, x, y, k, torch::Device(torch::kCPU), divide);
  }
};

const Experiment& experiment(const std::string& name) { return *Registry::instance().match("^" + name + "$").at(0); }

}  // namespace

TEST(GradAccumulation, FourMicroBatchesGiveTheLargeBatchGradients) {
  TinyGpt t;
  auto base = t.make(1), k4 = t.make(4);
  const double err = worst_grad_error(k4->first_step_grads(), base->first_step_grads());
  EXPECT_LT(err, 1e-5);
  std::vector<Workload*> pair = {base.get(), k4.get()};
  EXPECT_EQ(verify_accumulated_grads(1e-5)(pair), "");
}

TEST(GradAccumulation, ForgettingToDivideTheLossByKFails) {
  TinyGpt t;
  auto base = t.make(1), bad = t.make(4, /*divide=*/false);
  // Every gradient is 4x the large batch's: an error of 3 in every tensor.
  EXPECT_NEAR(worst_grad_error(bad->first_step_grads(), base->first_step_grads()), 3.0, 1e-3);
  std::vector<Workload*> pair = {base.get(), bad.get()};
  EXPECT_NE(verify_accumulated_grads(1e-5)(pair), "");
}

TEST(GradAccumulation, RegisteredCpuCasePassesItsOwnCheck) {
  const auto cases = experiment("grad_accumulation").cases({DeviceKind::cpu, RunProfile::quick});
  ASSERT_FALSE(cases.empty());
  for (const Case& c : cases) {
    ASSERT_TRUE(c.verify);
    auto base = c.variants.at(0).make();
    for (std::size_t i = 1; i < c.variants.size(); ++i) {
      auto v = c.variants[i].make();
      v->step();  // training the timed copy must not disturb the fresh-weights check
      std::vector<Workload*> pair = {base.get(), v.get()};
      EXPECT_EQ(c.verify(pair).problem, "") << c.variants[i].name;
    }
  }
}

TEST(ZeroGrad, ZeroesInPlaceOrDropsTheGradients) {
  auto w = torch::ones({3}, torch::requires_grad());
  torch::optim::SGD opt({w}, 0.1);
  (w * 2).sum().backward();
  const void* storage = w.grad().data_ptr();
  compat::zero_grad(opt, /*set_to_none=*/false);
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().data_ptr(), storage);  // the same memory, filled with zeros
  EXPECT_TRUE(torch::equal(w.grad(), torch::zeros({3})));
  (w * 2).sum().backward();
  compat::zero_grad(opt, /*set_to_none=*/true);
  EXPECT_FALSE(w.grad().defined());
}

TEST(HostSync, VariantsReadTheLossAsOftenAsTheySay) {
  const auto cases = experiment("host_sync").cases({DeviceKind::cpu, RunProfile::quick});
  ASSERT_FALSE(cases.empty());
  const Case& c = cases[0];
  ASSERT_EQ(c.variants.size(), 3u);
  std::vector<std::int64_t> reads;
  std::vector<std::unique_ptr<Workload>> built;
  for (const Variant& v : c.variants) {
    built.push_back(v.make());
    built.back()->step();
    const auto m = built.back()->metrics();
    EXPECT_GT(m["steps"].get<std::int64_t>(), 0);
    reads.push_back(m["loss_reads"].get<std::int64_t>() * 10 / m["steps"].get<std::int64_t>());
  }
  EXPECT_EQ(reads, (std::vector<std::int64_t>{10, 1, 0}));  // reads per 10 steps
  for (std::size_t i = 1; i < built.size(); ++i)
    EXPECT_TRUE(compare_outputs(built[0]->output(), built[i]->output(), *c.tolerance).passed);
}

// On the CPU the "device" is the host, so this checks the loop itself: both
// placements train (the loss moves) and give the same losses.
TEST(CriterionDevice, BothPlacementsGiveTheSameLossesOnCpu) {
  const Experiment& e = experiment("criterion_device");
  EXPECT_FALSE(e.unsupported_reason({DeviceKind::cpu, RunProfile::quick}).empty());
  const auto cases = e.cases({DeviceKind::cpu, RunProfile::quick});
  ASSERT_EQ(cases.size(), 2u);
  for (const Case& c : cases) {
    ASSERT_EQ(c.variants.size(), 2u);
    auto host = c.variants[0].make(), dev = c.variants[1].make();
    host->step();
    dev->step();
    const auto a = host->output(), b = dev->output();
    ASSERT_EQ(a.numel(), 3);
    EXPECT_TRUE(a.isfinite().all().item<bool>());
    EXPECT_NE(a[0].item<double>(), a[2].item<double>()) << c.name << ": the weights did not change";
    const OutputComparison cmp = compare_outputs(a, b, *c.tolerance);
    EXPECT_TRUE(cmp.passed) << c.name << ": " << cmp.message;
  }
}
