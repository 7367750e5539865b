// Activation checkpointing (workloads/training/checkpoint.h) on the CPU: same
// outputs and gradients as the plain blocks, the recomputation really happens,
// parameter gradients are never silently skipped, autocast is re-applied when
// backward runs on another thread; and the grad_checkpointing experiment's own
// verification and derived figures.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "harness/case_result.h"
#include "harness/compat/autocast.h"
#include "harness/registry.h"
#include "workloads/models/transformer.h"
#include "workloads/training/checkpoint.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

GptBlock make_block(std::uint64_t seed = 0) {
  torch::manual_seed(seed);
  return GptBlock(32, 4);
}

torch::Tensor input(bool requires_grad = true) {
  torch::manual_seed(11);
  return torch::randn({2, 8, 32}).requires_grad_(requires_grad);
}

struct Grads {
  torch::Tensor out, dx;
  std::vector<torch::Tensor> params = {};  // undefined where a parameter got none
};

// Forward, then backward of a fixed random projection of the output.
Grads run(const std::function<torch::Tensor(const torch::Tensor&)>& f, torch::nn::Module& m) {
  for (auto& p : m.parameters()) p.mutable_grad() = torch::Tensor();
  auto x = input();
  auto y = f(x);
  torch::manual_seed(5);
  auto w = torch::randn(y.sizes());
  (y * w).sum().backward();
  Grads g{y.detach(), x.grad()};
  for (auto& p : m.parameters()) g.params.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  return g;
}

// Why a and b differ, or "" when they match within fp32 rounding.
std::string differ(const Grads& a, const Grads& b, double rtol = 1e-5, double atol = 1e-6) {
  if (!torch::allclose(a.out, b.out, rtol, atol)) return "outputs differ";
  if (!a.dx.defined() || !b.dx.defined()) return "input gradient missing";
  if (!torch::allclose(a.dx, b.dx, rtol, atol)) return "input gradients differ";
  if (a.params.size() != b.params.size()) return "parameter counts differ";
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    if (!a.params[i].defined() || !b.params[i].defined()) return "parameter " + std::to_string(i) + " has no gradient";
    if (!torch::allclose(a.params[i], b.params[i], rtol, atol)) return "parameter " + std::to_string(i) + " differs";
  }
  return "";
}

// A checkpoint done wrong on purpose: backward takes the input's gradient with
// autograd::grad, which does not accumulate into the parameters.
struct SkipsParamGrads : torch::autograd::Function<SkipsParamGrads> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, GptBlock blk) {
    ctx->save_for_backward({x});
    holder() = blk;
    return blk->forward(x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    auto x = ctx->get_saved_variables()[0].detach().requires_grad_(true);
    torch::Tensor y;
    {
      torch::AutoGradMode on(true);
      y = holder()->forward(x);
    }
    return {torch::autograd::grad({y}, {x}, {g[0]})[0], torch::Tensor()};
  }
  static GptBlock& holder() {
    static GptBlock b{nullptr};
    return b;
  }
};

}  // namespace

TEST(Checkpoint, SameOutputAndGradientsAsThePlainBlock) {
  auto blk = make_block();
  const Grads plain = run([&](const torch::Tensor& x) { return blk->forward(x); }, *blk);
  const Grads ckpt = run(
      [&](const torch::Tensor& x) { return checkpoint([&](const torch::Tensor& h) { return blk->forward(h); }, x); },
      *blk);
  EXPECT_EQ(differ(plain, ckpt), "");
  EXPECT_TRUE(torch::equal(plain.out, ckpt.out)) << "the same kernels on the same input";
}

TEST(Checkpoint, ACheckpointThatSkipsParameterGradientsIsCaught) {
  // The comparison above must be able to fail: this broken checkpoint gets the
  // input's gradient right but leaves every parameter without one.
  auto blk = make_block();
  const Grads plain = run([&](const torch::Tensor& x) { return blk->forward(x); }, *blk);
  const Grads broken = run([&](const torch::Tensor& x) { return SkipsParamGrads::apply(x, blk); }, *blk);
  EXPECT_TRUE(torch::allclose(plain.dx, broken.dx, 1e-5, 1e-6));
  EXPECT_NE(differ(plain, broken).find("has no gradient"), std::string::npos);
  SkipsParamGrads::holder() = GptBlock(nullptr);
}

TEST(Checkpoint, ForwardRunsTwicePerStepWhenCheckpointed) {
  auto blk = make_block();
  int calls = 0;
  auto counted = [&](const torch::Tensor& h) {
    ++calls;
    return blk->forward(h);
  };
  run(counted, *blk);
  EXPECT_EQ(calls, 1);
  calls = 0;
  auto x = input();
  auto y = checkpoint(counted, x);
  EXPECT_EQ(calls, 1) << "the forward pass runs the block once";
  EXPECT_FALSE(y.grad_fn() == nullptr);
  y.sum().backward();
  EXPECT_EQ(calls, 2) << "backward re-runs it";
}

TEST(Checkpoint, RefusesAnInputThatDoesNotRequireGrad) {
  // Backward would never reach the block, so its parameters would silently get
  // no gradient (Python only warns).
  auto blk = make_block();
  auto f = [&](const torch::Tensor& h) { return blk->forward(h); };
  EXPECT_THROW(checkpoint(f, input(false)), c10::Error);
  torch::NoGradGuard no_grad;  // without grad mode it is just the block
  EXPECT_TRUE(torch::equal(checkpoint(f, input(false)), f(input(false))));
}

TEST(Checkpoint, PlansRecomputeTheRightBlocksAndKeepGradients) {
  torch::manual_seed(0);
  std::vector<GptBlock> mods;
  torch::nn::ModuleList all;
  for (int i = 0; i < 4; ++i) {
    mods.push_back(GptBlock(32, 4));
    all->push_back(mods.back());
  }
  std::vector<int> calls(4, 0);
  std::vector<BlockFn> blocks;
  for (int i = 0; i < 4; ++i)
    blocks.push_back([&, i](const torch::Tensor& h) {
      ++calls[i];
      return mods[i]->forward(h);
    });
  auto stack = [&](CheckpointPlan plan) {
    std::fill(calls.begin(), calls.end(), 0);
    return run([&](const torch::Tensor& x) { return run_blocks(blocks, x, plan); }, *all);
  };
  const Grads plain = stack({1, 0});
  EXPECT_EQ(calls, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(differ(plain, stack({1, 1})), "");
  EXPECT_EQ(calls, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(differ(plain, stack({1, 2})), "");
  EXPECT_EQ(calls, (std::vector<int>{2, 1, 2, 1}));
  EXPECT_EQ(differ(plain, stack({2, 1})), "");
  EXPECT_EQ(calls, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(differ(plain, stack({3, 2})), "");  // segments [0,1,2] checkpointed, [3] stored
  EXPECT_EQ(calls, (std::vector<int>{2, 2, 2, 1}));
}

TEST(Checkpoint, AutocastIsReappliedWhenBackwardRunsOnAnotherThread) {
  // Autocast state is thread-local: a backward started from a fresh thread sees
  // it off. The recomputation must still run in bf16, as the forward did.
  auto blk = make_block();
  auto f = [&](const torch::Tensor& h) { return blk->forward(h); };
  auto grads_with = [&](bool use_checkpoint, bool amp) {
    for (auto& p : blk->parameters()) p.mutable_grad() = torch::Tensor();
    auto x = input();
    torch::Tensor y;
    {
      compat::AutocastGuard ac(c10::DeviceType::CPU, c10::kBFloat16, amp);
      y = use_checkpoint ? checkpoint(f, x) : f(x);
    }
    std::thread([&] { y.to(torch::kFloat).sum().backward(); }).join();
    std::vector<torch::Tensor> g{x.grad()};
    for (auto& p : blk->parameters()) g.push_back(p.grad().clone());
    return g;
  };
  auto max_rel = [](const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      worst = std::max(worst, ((a[i] - b[i]).abs().max() / b[i].abs().max().clamp_min(1e-30)).item<double>());
    return worst;
  };
  const auto plain_bf16 = grads_with(false, true), ckpt_bf16 = grads_with(true, true);
  const auto plain_fp32 = grads_with(false, false);
  // The check can tell the precisions apart...
  ASSERT_GT(max_rel(plain_fp32, plain_bf16), 1e-3);
  // ...and the checkpointed bf16 gradients are the plain bf16 ones.
  EXPECT_LT(max_rel(ckpt_bf16, plain_bf16), 1e-5);
}

namespace {

Case grad_checkpointing_case() {
  const Experiment* e = Registry::instance().match("^grad_checkpointing$").at(0);
  auto cases = e->cases(RunContext{DeviceKind::cpu, RunProfile::quick});
  return cases.at(0);
}

}  // namespace

TEST(GradCheckpointingExperiment, EveryVariantPassesTheGradientCheck) {
  const Case c = grad_checkpointing_case();
  ASSERT_GE(c.variants.size(), 3u);
  auto base = c.variants[0].make();
  base->step();
  for (std::size_t i = 1; i < c.variants.size(); ++i) {
    EXPECT_EQ(c.variants[i].name.rfind("checkpoint", 0), 0u) << "the claim matches ^checkpoint";
    auto v = c.variants[i].make();
    v->step();
    std::vector<Workload*> pair{base.get(), v.get()};
    EXPECT_EQ(c.verify(pair).problem, "") << c.variants[i].name;
    const auto m = v->metrics();
    const double per_step = m.at("block_forwards_per_step"), blocks = m.at("blocks");
    EXPECT_GT(per_step, blocks) << c.variants[i].name << " recomputes blocks";
    EXPECT_LE(per_step, 2 * blocks);
  }
}

TEST(GradCheckpointingExperiment, DerivesMemorySavedAndTimePaid) {
  const Case c = grad_checkpointing_case();
  auto variant = [](std::string name, double median, std::optional<std::int64_t> peak) {
    VariantResult v;
    v.name = std::move(name);
    v.stats = Summary{};
    v.stats->median = median;
    if (peak) v.memory = MemoryPeak{*peak, 2 * *peak};
    return v;
  };
  CaseResult r;
  r.variants = {variant("no_checkpointing", 0.10, 1000), variant("checkpoint_every_block", 0.13, 400),
                variant("checkpoint_every_2nd_block", 0.115, std::nullopt)};
  const auto d = c.derive(r);
  const auto& every = d.at("variants").at("checkpoint_every_block");
  EXPECT_NEAR(every.at("time_overhead_fraction").get<double>(), 0.3, 1e-9);
  EXPECT_NEAR(every.at("memory_saved_fraction").get<double>(), 0.6, 1e-9);
  EXPECT_EQ(every.at("memory_saved_bytes").get<double>(), 600.0);
  const auto& second = d.at("variants").at("checkpoint_every_2nd_block");
  EXPECT_NEAR(second.at("time_overhead_fraction").get<double>(), 0.15, 1e-9);
  EXPECT_TRUE(second.at("memory_saved_fraction").is_null()) << "no memory figures on a CPU";
}
