#pragma once
// Optimizer::zero_grad() zeroes gradients on LibTorch 1.13 and sets them
// undefined on 2.x (Python's set_to_none=True default). Experiments say which
// they mean, so both builds do the same work.
#include <torch/optim/optimizer.h>

namespace optbench::compat {

inline void zero_grad(torch::optim::Optimizer& opt, bool set_to_none) {
  for (auto& group : opt.param_groups()) {
    for (auto& p : group.params()) {
      auto& g = p.mutable_grad();
      if (!g.defined()) continue;
      if (set_to_none) {
        g = at::Tensor();
      } else {
        // As Python's zero_grad(set_to_none=False): detach from any graph, then zero in place.
        if (g.grad_fn()) g = g.detach();
        g.zero_();
      }
    }
  }
}

}  // namespace optbench::compat
