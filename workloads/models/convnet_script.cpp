#include "workloads/models/convnet_script.h"

#include <torch/csrc/jit/ir/ir.h>

#include <chrono>
#include <set>
#include <sstream>
#include <stdexcept>

#include "harness/profiling/categories.h"
#include "harness/profiling/scopes.h"

namespace optbench::workloads {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string attr(std::size_t layer, const std::string& name) { return "self.l" + std::to_string(layer) + "_" + name; }

// One TorchScript statement per layer, the same ATen op the C++ module calls
// (conv2d without bias, batch_norm in eval with cuDNN allowed as the C++
// functional passes it, relu, adaptive_avg_pool2d, flatten, linear).
std::string statement(const LayerSpec& l, std::size_t i) {
  std::ostringstream s;
  s.precision(17);
  switch (l.kind) {
    case LayerKind::conv2d:
      s << "torch.conv2d(x, " << attr(i, "weight") << ", None, [" << l.stride << ", " << l.stride << "], [" << l.padding
        << ", " << l.padding << "], [1, 1], 1)";
      break;
    case LayerKind::batch_norm2d:
      s << "torch.batch_norm(x, " << attr(i, "weight") << ", " << attr(i, "bias") << ", " << attr(i, "running_mean")
        << ", " << attr(i, "running_var") << ", False, 0.1, " << l.eps << ", True)";
      break;
    case LayerKind::relu:
      s << "torch.relu(x)";
      break;
    case LayerKind::global_avg_pool:
      s << "torch.adaptive_avg_pool2d(x, [1, 1])";
      break;
    case LayerKind::flatten:
      s << "torch.flatten(x, 1, -1)";
      break;
    case LayerKind::linear:
      s << "torch.linear(x, " << attr(i, "weight") << ", " << (l.bias ? attr(i, "bias") : "None") << ")";
      break;
  }
  return "    x = " + s.str() + "\n";
}

}  // namespace

ScriptedConvNet script_convnet(const ConvNet& n) {
  const auto t0 = Clock::now();
  ScriptedConvNet out{torch::jit::Module(c10::QualifiedName("optbench.ScriptedConvNet")), "", 0};
  torch::jit::Module& m = out.module;
  for (std::size_t i = 0; i < n.layers.size(); ++i) {
    for (const auto& [name, t] : layer_tensors(n, i)) {
      const std::string key = "l" + std::to_string(i) + "_" + name;
      // A copy, so the scripted module cannot see later changes to the eager one.
      auto copy = t.detach().clone();
      if (name == "running_mean" || name == "running_var") {
        m.register_buffer(key, copy);
      } else {
        m.register_parameter(key, copy.requires_grad_(t.requires_grad()), /*is_buffer=*/false);
      }
    }
  }
  // freeze() and eval() need the attribute nn.Module gets from Python.
  if (!m.hasattr("training")) m.register_attribute("training", c10::BoolType::get(), true);
  std::string src = "def forward(self, x):\n";
  for (std::size_t i = 0; i < n.layers.size(); ++i) src += statement(n.layers[i], i);
  src += "    return x\n";
  m.define(src);
  m.eval();
  out.source = std::move(src);
  out.compile_s = seconds_since(t0);
  return out;
}

torch::jit::Module freeze_and_optimize(const torch::jit::Module& m, FreezeTimes* times) {
  if (m.is_training()) throw std::invalid_argument("freeze needs a module in eval mode");
  auto t0 = Clock::now();
  torch::jit::Module frozen = torch::jit::freeze(m);
  const double freeze_s = seconds_since(t0);
  t0 = Clock::now();
  torch::jit::Module optimized = torch::jit::optimize_for_inference(frozen);
  if (times) *times = {freeze_s, seconds_since(t0)};
  return optimized;
}

std::map<std::string, int> forward_op_counts(const torch::jit::Module& m) {
  std::map<std::string, int> counts;
  auto graph = m.get_method("forward").graph();
  for (torch::jit::Node* node : graph->nodes()) {
    const auto k = node->kind();
    if (k == c10::prim::Constant || k == c10::prim::GetAttr || k == c10::prim::ListConstruct) continue;
    ++counts[k.toQualString()];
  }
  return counts;
}

namespace {

// prim:: nodes that move values or control flow, doing no tensor work.
bool bookkeeping(const std::string& kind) {
  static const std::set<std::string> kinds = {"prim::Constant",
                                              "prim::GetAttr",
                                              "prim::SetAttr",
                                              "prim::ListConstruct",
                                              "prim::ListUnpack",
                                              "prim::TupleConstruct",
                                              "prim::TupleUnpack",
                                              "prim::TupleIndex",
                                              "prim::DictConstruct",
                                              "prim::If",
                                              "prim::Loop",
                                              "prim::RaiseException",
                                              "prim::CallMethod",
                                              "prim::CallFunction",
                                              "prim::Uninitialized",
                                              "prim::unchecked_cast",
                                              "prim::NumToTensor",
                                              "prim::device",
                                              "prim::dtype",
                                              "prim::layout",
                                              "prim::ConstantMKLDNNTensor",
                                              "prim::Return",
                                              "prim::Param"};
  return kinds.count(kind) > 0;
}

// Categories of the JIT's own (non-dispatcher) operators under `block`; an
// unrecognised one adds Category::other.
void unrecorded(torch::jit::Block* block, std::set<profiling::Category>& out) {
  for (torch::jit::Node* node : block->nodes()) {
    for (torch::jit::Block* b : node->blocks()) unrecorded(b, out);
    const std::string kind = node->kind().toQualString();
    // Operators of other namespaces (aten::, quantized::, ...) go through the
    // dispatcher, which records them.
    if (!node->kind().is_prim() || bookkeeping(kind)) continue;
    out.insert(profiling::categorise(profiling::EventKind::cpu_op, kind));
  }
}

}  // namespace

std::string compiled_scope(const torch::jit::Module& m) {
  std::set<profiling::Category> cats;
  unrecorded(m.get_method("forward").graph()->block(), cats);
  if (cats.size() == 1 && *cats.begin() != profiling::Category::other)
    return std::string(profiling::kCompiledScope) + "/" + profiling::category_key(*cats.begin());
  return profiling::kCompiledScope;
}

}  // namespace optbench::workloads
