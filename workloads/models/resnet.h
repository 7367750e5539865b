#pragma once
// ResNet-50 in torchvision's layout (Bottleneck blocks [3, 4, 6, 3], stride on
// the 3x3 convolution, "v1.5"), so throughput compares with published numbers.
#include <torch/torch.h>

namespace optbench::workloads {

struct BottleneckImpl : torch::nn::Module {
  BottleneckImpl(std::int64_t in, std::int64_t width, std::int64_t stride);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};
  static constexpr std::int64_t kExpansion = 4;
};
TORCH_MODULE(Bottleneck);

struct ResNetImpl : torch::nn::Module {
  ResNetImpl(std::vector<std::int64_t> layers, std::int64_t classes);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet);

ResNet resnet50(std::int64_t classes = 1000);

// Forward FLOPs (multiply-adds x 2) of ResNet-50 at 224x224: 4.1 GMACs.
constexpr double kResNet50ForwardFlops224 = 2 * 4.11e9;

}  // namespace optbench::workloads
