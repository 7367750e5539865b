#pragma once
// The small conv net CPU loader loops train (dataloader, storage_reads): its
// step on one thread costs less than loading its batch on one thread, so a loop
// moves from loader-bound to compute-bound within two cores.
#include <torch/torch.h>

namespace optbench::workloads {

inline torch::nn::Sequential small_cnn(std::int64_t classes) {
  return torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 4).stride(4)), torch::nn::ReLU(),
                               torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 16, 3).stride(2).padding(1)),
                               torch::nn::ReLU(), torch::nn::AdaptiveAvgPool2d(1), torch::nn::Flatten(),
                               torch::nn::Linear(16, classes));
}

}  // namespace optbench::workloads
