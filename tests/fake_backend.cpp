#include "tests/fake_backend.h"

#include <ATen/ATen.h>

#include <stdexcept>

namespace optbench::testing {

void FakeWork::step() {
  if (fail_after_ >= 0 && steps_++ >= fail_after_)
    throw std::runtime_error("CUDA out of memory. Tried to allocate 2.00 GiB");
  if (mem_) mem_->allocate(step_bytes_);
  std::normal_distribution<double> n(0.0, noise_);
  clock_.now += seconds_ * std::max(0.1, 1.0 + n(rng_));
  if (mem_) mem_->free(step_bytes_);
}

at::Tensor FakeWork::output() { return at::full({4}, value_, at::kFloat); }

}  // namespace optbench::testing
