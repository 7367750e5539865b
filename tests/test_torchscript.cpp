// The TorchScript experiment's modules: the TorchScript module assembled in C++
// and its frozen + optimised form compute what the eager ConvNet computes (at
// the tolerance the experiment holds them to), freezing really folds the
// BatchNorms away, and a module with one weight changed fails the comparison.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/registry.h"
#include "harness/verify.h"
#include "workloads/common.h"
#include "workloads/models/convnet.h"
#include "workloads/models/convnet_script.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

// The tolerance of the experiment's first CPU case, as the runner applies it.
Tolerance experiment_tolerance() {
  const Experiment* e = Registry::instance().match("^torchscript$").at(0);
  const auto cases = e->cases(RunContext{DeviceKind::cpu, RunProfile::quick});
  return cases.at(0).tolerance.value();
}

struct Fixture {
  ConvNetSpec spec;
  ConvNet net = make_convnet(spec, 0);
  torch::Tensor x = seeded_randn({4, 3, spec.image, spec.image}, torch::TensorOptions(), 7);
  torch::Tensor eager() {
    torch::NoGradGuard g;
    return net.net->forward(x);
  }
};

torch::Tensor run(torch::jit::Module& m, const torch::Tensor& x) {
  torch::NoGradGuard g;
  return m.forward({x}).toTensor();
}

int count(const std::map<std::string, int>& ops, const std::string& kind) {
  auto it = ops.find(kind);
  return it == ops.end() ? 0 : it->second;
}

}  // namespace

TEST(TorchScriptConvNet, ScriptedAndFrozenGiveTheEagerOutput) {
  Fixture f;
  const auto ref = f.eager();
  const Tolerance tol = experiment_tolerance();
  ScriptedConvNet s = script_convnet(f.net);
  torch::jit::Module frozen = freeze_and_optimize(s.module);
  // Twice each: the profiling executor's first run and its optimised graph.
  for (int i = 0; i < 2; ++i) {
    const OutputComparison a = compare_outputs(ref, run(s.module, f.x), tol);
    EXPECT_TRUE(a.passed) << "scripted, run " << i << ": " << a.message;
    const OutputComparison b = compare_outputs(ref, run(frozen, f.x), tol);
    EXPECT_TRUE(b.passed) << "frozen_optimized, run " << i << ": " << b.message;
  }
}

TEST(TorchScriptConvNet, FreezingFoldsTheBatchNorms) {
  Fixture f;
  const std::size_t bns = 1 + 2 * f.spec.stages.size();
  ScriptedConvNet s = script_convnet(f.net);
  const auto scripted = forward_op_counts(s.module);
  EXPECT_EQ(count(scripted, "aten::batch_norm"), static_cast<int>(bns));
  EXPECT_EQ(count(scripted, "aten::conv2d"), static_cast<int>(bns));
  const auto frozen = forward_op_counts(freeze_and_optimize(s.module));
  EXPECT_EQ(count(frozen, "aten::batch_norm"), 0) << "freeze left BatchNorm nodes";
}

TEST(TorchScriptConvNet, ScriptedModuleOwnsACopyOfTheWeights) {
  Fixture f;
  const auto ref = f.eager();
  ScriptedConvNet s = script_convnet(f.net);
  {
    torch::NoGradGuard g;
    f.net.net->ptr(0)->as<torch::nn::Conv2d>()->weight.mul_(2);  // the eager net changes afterwards
  }
  EXPECT_TRUE(compare_outputs(ref, run(s.module, f.x), experiment_tolerance()).passed);
}

TEST(TorchScriptConvNet, ADifferentWeightFailsTheComparison) {
  const Tolerance tol = experiment_tolerance();
  Fixture f;
  const auto ref = f.eager();
  const std::size_t last = f.net.layers.size() - 1;  // the classifier's Linear
  ASSERT_EQ(f.net.layers[last].kind, LayerKind::linear);
  // One BatchNorm gamma 1% off in the stem (layer 1), in the scripted module.
  ScriptedConvNet bn = script_convnet(f.net);
  {
    torch::NoGradGuard g;
    bn.module.attr("l1_weight").toTensor()[0].mul_(1.01);
  }
  const OutputComparison a = compare_outputs(ref, run(bn.module, f.x), tol);
  EXPECT_FALSE(a.passed) << "1% on one BN channel went unnoticed, max_rel_err=" << a.max_rel_err;
  torch::jit::Module frozen_bn = freeze_and_optimize(bn.module);
  EXPECT_FALSE(compare_outputs(ref, run(frozen_bn, f.x), tol).passed) << "frozen copy of the changed module";
  // One class bias off by 0.01 in the eager net before scripting.
  {
    torch::NoGradGuard g;
    f.net.net->ptr(last)->as<torch::nn::Linear>()->bias[3].add_(0.01);
  }
  ScriptedConvNet bias = script_convnet(f.net);
  EXPECT_FALSE(compare_outputs(ref, run(bias.module, f.x), tol).passed);
  torch::jit::Module frozen_bias = freeze_and_optimize(bias.module);
  EXPECT_FALSE(compare_outputs(ref, run(frozen_bias, f.x), tol).passed);
}
