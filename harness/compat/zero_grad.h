#pragma once
// Gradients reset the way an experiment says (set to none, Python 2.x's default,
// or zeroed in place), not by whatever Optimizer::zero_grad() defaults to in the
// LibTorch at hand.
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
