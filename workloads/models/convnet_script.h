#pragma once
// The ConvNet as a TorchScript module. A C++ frontend module is not a
// TorchScript module (there is no torch.jit.script in C++), so the module is
// assembled here: a torch::jit::Module holding copies of the eager weights as
// parameters and buffers, with a forward written in TorchScript source, op for
// op what the Sequential runs.
#include <torch/torch.h>

#include <map>
#include <string>

#include "workloads/models/convnet.h"

namespace optbench::workloads {

struct ScriptedConvNet {
  torch::jit::Module module;  // eval mode, weights on the eager net's device
  std::string source;         // the TorchScript forward
  double compile_s = 0;       // registering weights and compiling the source
};

ScriptedConvNet script_convnet(const ConvNet& n);

struct FreezeTimes {
  double freeze_s = 0;
  double optimize_s = 0;
};

// torch::jit::freeze (weights become constants; BN folded into the conv,
// conv-add/mul folding), then torch::jit::optimize_for_inference (on CPU:
// MKL-DNN layouts and fused conv+ReLU where available; on GPU: the CUDA passes).
torch::jit::Module freeze_and_optimize(const torch::jit::Module& m, FreezeTimes* times = nullptr);

// Nodes of each kind in the module's forward graph, leaving out constants,
// attribute reads and list construction: what the passes left of the model.
std::map<std::string, int> forward_op_counts(const torch::jit::Module& m);

// The profiler scope a call of m's forward runs in (harness/profiling/scopes.h).
// The JIT runs some operators of its own that no profiler record covers (a
// frozen graph's prim::mkldnn_convolution): where every such operator in the
// forward graph is of one category (conv), the graph's uncovered time goes to
// it; otherwise (fusion groups, mixed kinds, none) to "compiled".
std::string compiled_scope(const torch::jit::Module& m);

}  // namespace optbench::workloads
