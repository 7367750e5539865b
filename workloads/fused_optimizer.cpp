// Seed 001's kernel fusion ("replace multiple small ops with fused versions"),
// on the step every training loop ends with: AdamW as a loop over parameters
// (several kernels per tensor), as multi-tensor _foreach_ ops (one call per op
// over every tensor) and as the fused kernel (one for the whole update); see
// workloads/training/adamw.h. Where there are many small parameter tensors the
// loop is launch-bound and fusion should pay; with a few large ones every
// version streams the same bytes. The optimizer step alone, and the whole
// training step of the many-tensor model. Verified: the parameters after 5
// steps from the same start agree with the loop's. Beside the optimizer-step
// cases their Python twins: torch.optim.AdamW with foreach=False (a Python loop
// over the tensors, each op paying the interpreter too), foreach=True and
// fused=True over the same shapes, run by the build's Python.
#include <torch/torch.h>

#include "harness/registry.h"
#include "workloads/training/optimizer_cases.h"

namespace optbench::workloads {
namespace {

class FusedOptimizer final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "fused_optimizer",
        "Kernel fusion in the optimizer: AdamW per tensor vs foreach vs fused",
        "multi-tensor (_foreach_) and fused (_fused_adamw_) AdamW instead of a loop over parameters",
        {"kernel_fusion"},
        "AdamW as the C++ frontend's loop over parameters (baseline), as multi-tensor _foreach_ ops and as the "
        "fused kernel: the optimizer step alone on a deep MLP of many small tensors and on two large tensors "
        "(GB/s of the update's 28 bytes per parameter), and the whole training step of the MLP. The parameters "
        "after 5 steps must match the loop's. Beside the step-alone cases their Python twins: "
        "torch.optim.AdamW(foreach=False / foreach=True / fused=True) over the same shapes in the build's "
        "Python, where a Python user's loop also pays the interpreter per tensor."};
    i.quick_leaves_out =
        "the Python twin of the two large tensors (each Python variant starts an interpreter that "
        "imports torch, ~1.5 s): the many-small-tensors twin, where the Python loop weighs most, runs";
    i.mechanism_counters = {"optimizer_ops_per_step", "kernel_launches_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    const OptimizerModel many = gpu ? optimizer_mlp(64, 256, 256) : optimizer_mlp(32, 64, 32);
    // Two 2048^2 tensors on a CPU: parameters, gradients and moments take 128 MB,
    // beyond the CI VM's 32 MB L3, so the update streams from memory there too.
    const OptimizerModel few = optimizer_two_large(gpu ? 4096 : 2048);
    const std::vector<AdamWConfig> cfg = {AdamWConfig{}};
    std::vector<Case> out = {fused_optimizer_case(many, false, ctx.device, cfg),
                             fused_optimizer_case(few, false, ctx.device, cfg),
                             fused_optimizer_case(many, true, ctx.device, cfg)};
    // Optimizer steps per timed request: >= ~5 ms of work on the CI VM (the
    // Python loop over the MLP's 66 tensors takes ~1-3 ms a step there; one step
    // of the two large tensors, tens of ms), so the pipe's ~10 us round trip
    // (recorded as pipe_round_trip_us) is a small share. On a GPU a fused step is
    // ~0.1-0.3 ms (the MLP's 130 tensors and ~70 MB of state, a launch or two;
    // the two 4096^2 tensors, ~0.5 GB of state streamed at ~3 TB/s): one to five
    // of them would leave the round trip and the request's synchronize 5-20% of
    // the fastest variant's time, the same in every variant, so every speedup
    // would shrink. 20 make it ~1%.
    out.push_back(python_optimizer_case(many, ctx.device, cfg, gpu ? 20 : 5));
    if (ctx.profile != RunProfile::quick) out.push_back(python_optimizer_case(few, ctx.device, cfg, gpu ? 20 : 1));
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(FusedOptimizer);

}  // namespace
}  // namespace optbench::workloads
