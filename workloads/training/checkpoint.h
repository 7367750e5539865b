#pragma once
// Activation (gradient) checkpointing for the C++ frontend, which has no
// torch.utils.checkpoint: the reentrant form (Python's use_reentrant=True). The
// forward runs the block without recording a graph and keeps only its input;
// backward re-runs the block with grad enabled and back-propagates through the
// recomputed graph, which accumulates the block's parameter gradients.
//
// Limits, as in Python's reentrant checkpoint:
// - Blocks must be deterministic: no RNG ops (dropout), since the RNG state is
//   not saved and restored, and no side effects that must happen once.
// - One tensor in, one tensor out; the input must require grad when grad mode
//   is on (else backward never reaches the block and its parameters would get
//   no gradient: this refuses instead of Python's warning).
// - Autocast (CPU and CUDA) is supported: its state is captured at forward and
//   re-applied for the recomputation, since backward may run on another thread
//   (autocast state is thread-local). The autocast weight-cast cache is off in
//   checkpointed code, so casts made without grad are never reused with grad.
// - Not usable with torch::autograd::grad(..., inputs) restricted to a subset
//   (the nested backward accumulates into .grad), as in Python.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace optbench::workloads {

using BlockFn = std::function<torch::Tensor(const torch::Tensor&)>;

// fn(x), with fn's activations recomputed in backward instead of stored.
// Without grad mode it is just fn(x).
torch::Tensor checkpoint(const BlockFn& fn, const torch::Tensor& x);

// Which of a stack of blocks run checkpointed: consecutive blocks are grouped in
// segments of `segment` blocks; segment k is checkpointed when stride > 0 and
// k % stride == 0. {1, 1}: every block; {1, 2}: every 2nd block; {2, 1}: pairs
// of blocks as one checkpoint (Python's checkpoint_sequential); stride 0: none.
struct CheckpointPlan {
  std::int64_t segment = 1;
  std::int64_t stride = 0;
};

// Runs the blocks in order on x according to the plan.
torch::Tensor run_blocks(const std::vector<BlockFn>& blocks, torch::Tensor x, const CheckpointPlan& plan);

}  // namespace optbench::workloads
