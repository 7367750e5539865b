#include "workloads/models/resnet.h"

namespace optbench::workloads {
namespace {

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t pad) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

}  // namespace

BottleneckImpl::BottleneckImpl(std::int64_t in, std::int64_t width, std::int64_t stride) {
  const std::int64_t out = width * kExpansion;
  conv1 = register_module("conv1", conv(in, width, 1, 1, 0));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(width));
  conv2 = register_module("conv2", conv(width, width, 3, stride, 1));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(width));
  conv3 = register_module("conv3", conv(width, out, 1, 1, 0));
  bn3 = register_module("bn3", torch::nn::BatchNorm2d(out));
  if (stride != 1 || in != out)
    downsample =
        register_module("downsample", torch::nn::Sequential(conv(in, out, 1, stride, 0), torch::nn::BatchNorm2d(out)));
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  auto identity = downsample ? downsample->forward(x) : x;
  auto y = torch::relu(bn1(conv1(x)));
  y = torch::relu(bn2(conv2(y)));
  y = bn3(conv3(y));
  return torch::relu(y + identity);
}

ResNetImpl::ResNetImpl(std::vector<std::int64_t> layers, std::int64_t classes) {
  conv1 = register_module("conv1", conv(3, 64, 7, 2, 3));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(64));
  std::int64_t in = 64;
  auto make_layer = [&](std::int64_t width, std::int64_t blocks, std::int64_t stride) {
    torch::nn::Sequential s;
    for (std::int64_t i = 0; i < blocks; ++i) {
      s->push_back(Bottleneck(in, width, i == 0 ? stride : 1));
      in = width * BottleneckImpl::kExpansion;
    }
    return s;
  };
  layer1 = register_module("layer1", make_layer(64, layers.at(0), 1));
  layer2 = register_module("layer2", make_layer(128, layers.at(1), 2));
  layer3 = register_module("layer3", make_layer(256, layers.at(2), 2));
  layer4 = register_module("layer4", make_layer(512, layers.at(3), 2));
  fc = register_module("fc", torch::nn::Linear(in, classes));
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  x = torch::relu(bn1(conv1(x)));
  x = torch::max_pool2d(x, 3, 2, 1);
  x = layer4->forward(layer3->forward(layer2->forward(layer1->forward(x))));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return fc(x);
}

ResNet resnet50(std::int64_t classes) { return ResNet(std::vector<std::int64_t>{3, 4, 6, 3}, classes); }

}  // namespace optbench::workloads
