#pragma once
// The MLP several experiments train or evaluate: depth Linear(width, width) +
// GELU layers, then a Linear(width, classes) head (none when classes is 0).
// Built in the same order everywhere, so one seed gives the same weights.
#include <torch/torch.h>

namespace optbench::workloads {

torch::nn::Sequential gelu_mlp(std::int64_t depth, std::int64_t width, std::int64_t classes);

}  // namespace optbench::workloads
