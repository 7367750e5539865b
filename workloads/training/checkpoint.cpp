#include "workloads/training/checkpoint.h"

#include <algorithm>

#include "harness/compat/autocast.h"

namespace optbench::workloads {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct AutocastState {
  bool enabled;
  c10::ScalarType dtype;
  static AutocastState of(c10::DeviceType d) { return {compat::autocast_enabled(d), compat::autocast_dtype(d)}; }
};

// What backward needs besides the saved input: the block and the autocast state
// of the forward. Held by the autograd context as an opaque IValue capsule.
struct Block final : torch::CustomClassHolder {
  BlockFn fn;
  AutocastState cuda, cpu;
};

// Autocast caches the low-precision copies of weights while a region is open; a
// copy made without grad (the checkpointed forward) must not be reused where
// grad is on, so checkpointed code runs with the cache off.
class AutocastCacheOff {
 public:
  AutocastCacheOff() : prev_(at::autocast::is_autocast_cache_enabled()) {
    at::autocast::set_autocast_cache_enabled(false);
  }
  ~AutocastCacheOff() { at::autocast::set_autocast_cache_enabled(prev_); }
  AutocastCacheOff(const AutocastCacheOff&) = delete;
  AutocastCacheOff& operator=(const AutocastCacheOff&) = delete;

 private:
  bool prev_;
};

class CheckpointFunction final : public torch::autograd::Function<CheckpointFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const c10::intrusive_ptr<Block>& block) {
    ctx->saved_data["block"] = c10::IValue::make_capsule(block);
    ctx->save_for_backward({x});
    torch::NoGradGuard no_grad;  // apply() already turns grad off; said here because it is the point
    AutocastCacheOff cache_off;
    return block->fn(x);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    const auto holder = ctx->saved_data["block"].toCapsule();
    const auto* block = static_cast<const Block*>(holder.get());
    // A fresh leaf on the same storage: the recomputed graph ends here, and its
    // .grad is the gradient for the checkpoint's input.
    auto x = ctx->get_saved_variables().at(0).detach().requires_grad_(true);
    torch::Tensor y;
    {
      torch::AutoGradMode grad_on(true);  // the engine runs backward with grad off
      compat::AutocastGuard cuda(c10::DeviceType::CUDA, block->cuda.dtype, block->cuda.enabled);
      compat::AutocastGuard cpu(c10::DeviceType::CPU, block->cpu.dtype, block->cpu.enabled);
      AutocastCacheOff cache_off;
      y = block->fn(x);
    }
    // Reentrant backward: accumulates the block's parameter gradients and x.grad.
    if (y.requires_grad()) torch::autograd::backward({y}, {grad_out.at(0)});
    return {x.grad(), torch::Tensor()};  // one per forward argument; none for the block
  }
};

}  // namespace

torch::Tensor checkpoint(const BlockFn& fn, const torch::Tensor& x) {
  if (!torch::GradMode::is_enabled()) return fn(x);
  TORCH_CHECK(x.requires_grad(),
              "checkpoint: the input does not require grad, so backward would never re-run the block and its "
              "parameters would get no gradient");
  auto block = c10::make_intrusive<Block>();
  block->fn = fn;
  block->cuda = AutocastState::of(c10::DeviceType::CUDA);
  block->cpu = AutocastState::of(c10::DeviceType::CPU);
  return CheckpointFunction::apply(x, block);
}

torch::Tensor run_blocks(const std::vector<BlockFn>& blocks, torch::Tensor x, const CheckpointPlan& plan) {
  TORCH_CHECK(plan.segment >= 1 && plan.stride >= 0, "run_blocks: segment must be >= 1 and stride >= 0");
  const auto n = static_cast<std::int64_t>(blocks.size());
  for (std::int64_t first = 0, k = 0; first < n; first += plan.segment, ++k) {
    const std::int64_t last = std::min(n, first + plan.segment);
    // By value: a checkpointed segment is called again in backward, after the
    // caller's vector may be gone.
    std::vector<BlockFn> part(blocks.begin() + first, blocks.begin() + last);
    auto segment = [part = std::move(part)](const torch::Tensor& in) {
      torch::Tensor h = in;
      for (const auto& b : part) h = b(h);
      return h;
    };
    x = (plan.stride > 0 && k % plan.stride == 0) ? checkpoint(segment, x) : segment(x);
  }
  return x;
}

}  // namespace optbench::workloads
