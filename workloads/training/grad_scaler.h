#pragma once
// LibTorch has no GradScaler: this is Python's torch.amp.GradScaler for one
// optimizer, on the same fused ops (_amp_foreach_non_finite_check_and_unscale_,
// _amp_update_scale_), which have CUDA and CPU kernels.
#include <torch/torch.h>

namespace optbench::workloads {

struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions o = {});
  torch::Tensor scale(const torch::Tensor& loss);
  // Divides the gradients by the scale and notes whether any is inf/NaN.
  void unscale(torch::optim::Optimizer& opt);
  // Steps unless a gradient was inf/NaN (the step is skipped, as in Python).
  // Returns whether it stepped; reads one scalar from the device.
  bool step(torch::optim::Optimizer& opt);
  // Backs the scale off after an overflow, grows it after growth_interval clean steps.
  void update();
  double get_scale() const;
  bool enabled() const { return opts_.enabled; }

  // The two primitives, exposed for tests: native kernels where LibTorch has
  // them, the composite otherwise.
  static void non_finite_check_and_unscale(std::vector<torch::Tensor>& grads, torch::Tensor& found_inf,
                                           const torch::Tensor& inv_scale);
  static void update_scale(torch::Tensor& scale, torch::Tensor& growth_tracker, const torch::Tensor& found_inf,
                           double growth, double backoff, std::int64_t interval);

 private:
  void lazy_init(const torch::Device& d);
  GradScalerOptions opts_;
  torch::Tensor scale_, growth_tracker_, found_inf_;
  bool unscaled_ = false;
};

}  // namespace optbench::workloads
