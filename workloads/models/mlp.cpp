#include "workloads/models/mlp.h"

namespace optbench::workloads {

torch::nn::Sequential gelu_mlp(std::int64_t depth, std::int64_t width, std::int64_t classes) {
  torch::nn::Sequential net;
  for (std::int64_t i = 0; i < depth; ++i) {
    net->push_back(torch::nn::Linear(width, width));
    net->push_back(torch::nn::GELU());
  }
  if (classes > 0) net->push_back(torch::nn::Linear(width, classes));
  return net;
}

}  // namespace optbench::workloads
