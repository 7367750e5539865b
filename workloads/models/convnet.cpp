#include "workloads/models/convnet.h"

#include <stdexcept>

#include "workloads/common.h"

namespace optbench::workloads {
namespace {

std::vector<LayerSpec> layer_list(const ConvNetSpec& s) {
  std::vector<LayerSpec> ls;
  auto block = [&ls](std::int64_t in, std::int64_t out, std::int64_t stride) {
    LayerSpec conv{LayerKind::conv2d, in, out, 3, stride, 1};
    LayerSpec bn{LayerKind::batch_norm2d, out, out};
    ls.push_back(conv);
    ls.push_back(bn);
    ls.push_back({LayerKind::relu});
  };
  block(3, s.stem_channels, s.stem_stride);
  std::int64_t in = s.stem_channels;
  for (std::int64_t c : s.stages) {
    block(in, c, 2);
    block(c, c, 1);
    in = c;
  }
  ls.push_back({LayerKind::global_avg_pool});
  ls.push_back({LayerKind::flatten});
  ls.push_back({LayerKind::linear, in, s.hidden, 0, 1, 0, 1e-5, true});
  ls.push_back({LayerKind::relu});
  ls.push_back({LayerKind::linear, s.hidden, s.classes, 0, 1, 0, 1e-5, true});
  return ls;
}

torch::nn::Sequential build(const std::vector<LayerSpec>& ls) {
  namespace nn = torch::nn;
  nn::Sequential net;
  for (const LayerSpec& l : ls) {
    switch (l.kind) {
      case LayerKind::conv2d:
        net->push_back(
            nn::Conv2d(nn::Conv2dOptions(l.in, l.out, l.kernel).stride(l.stride).padding(l.padding).bias(false)));
        break;
      case LayerKind::batch_norm2d:
        net->push_back(nn::BatchNorm2d(nn::BatchNorm2dOptions(l.out).eps(l.eps)));
        break;
      case LayerKind::relu:
        net->push_back(nn::ReLU());
        break;
      case LayerKind::global_avg_pool:
        net->push_back(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)));
        break;
      case LayerKind::flatten:
        net->push_back(nn::Flatten(nn::FlattenOptions().start_dim(1).end_dim(-1)));
        break;
      case LayerKind::linear:
        net->push_back(nn::Linear(nn::LinearOptions(l.in, l.out).bias(l.bias)));
        break;
    }
  }
  return net;
}

// Running statistics from one seeded batch (momentum 1 keeps exactly that
// batch's), with gamma and beta drawn away from 1 and 0: activations stay O(1)
// through the depth and every BN is a real per-channel affine map.
void calibrate(ConvNet& n, std::int64_t image, std::uint64_t seed) {
  torch::NoGradGuard ng;
  for (std::size_t i = 0; i < n.layers.size(); ++i) {
    if (n.layers[i].kind != LayerKind::batch_norm2d) continue;
    auto* bn = n.net->ptr(i)->as<torch::nn::BatchNorm2d>();
    bn->weight.uniform_(0.5, 1.5);
    bn->bias.uniform_(-0.2, 0.2);
    bn->options.momentum(1.0);
  }
  n.net->train();
  n.net->forward(seeded_randn({8, 3, image, image}, torch::TensorOptions(), seed + 1));
  for (std::size_t i = 0; i < n.layers.size(); ++i)
    if (n.layers[i].kind == LayerKind::batch_norm2d) n.net->ptr(i)->as<torch::nn::BatchNorm2d>()->options.momentum(0.1);
  n.net->eval();
}

}  // namespace

const char* layer_kind_name(LayerKind k) {
  switch (k) {
    case LayerKind::conv2d:
      return "conv2d";
    case LayerKind::batch_norm2d:
      return "batch_norm2d";
    case LayerKind::relu:
      return "relu";
    case LayerKind::global_avg_pool:
      return "global_avg_pool";
    case LayerKind::flatten:
      return "flatten";
    case LayerKind::linear:
      return "linear";
  }
  return "?";
}

ConvNet make_convnet(const ConvNetSpec& s, std::uint64_t seed) {
  torch::manual_seed(seed);
  ConvNet n{nullptr, layer_list(s)};
  n.net = build(n.layers);
  calibrate(n, s.image, seed);
  return n;
}

ConvNet clone_to(const ConvNet& n, const torch::Device& device) {
  auto copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(n.net->clone(device));
  if (!copy) throw std::logic_error("Sequential::clone did not return a Sequential");
  ConvNet out{torch::nn::Sequential(copy), n.layers};
  out.net->eval();
  return out;
}

std::vector<std::pair<std::string, torch::Tensor>> layer_tensors(const ConvNet& n, std::size_t i) {
  const auto& m = *n.net->ptr(i);
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : m.named_parameters(/*recurse=*/false)) out.emplace_back(p.key(), p.value());
  for (const auto& b : m.named_buffers(/*recurse=*/false))
    if (b.key() != "num_batches_tracked") out.emplace_back(b.key(), b.value());
  return out;
}

double convnet_forward_flops(const ConvNetSpec& s) {
  double flops = 0;
  std::int64_t hw = s.image;
  for (const LayerSpec& l : layer_list(s)) {
    if (l.kind == LayerKind::conv2d) {
      hw = (hw + 2 * l.padding - l.kernel) / l.stride + 1;
      flops += 2.0 * static_cast<double>(hw * hw * l.out * l.in * l.kernel * l.kernel);
    } else if (l.kind == LayerKind::linear) {
      flops += 2.0 * static_cast<double>(l.in * l.out);
    }
  }
  return flops;
}

Tolerance convnet_tolerance(DeviceKind d) {
  return d == DeviceKind::cuda ? Tolerance{1e-3, 1e-4} : Tolerance{1e-4, 1e-5};
}

nlohmann::json to_json(const ConvNetSpec& s) {
  return {{"image", s.image},
          {"stem_channels", s.stem_channels},
          {"stem_stride", s.stem_stride},
          {"stages", s.stages},
          {"hidden", s.hidden},
          {"classes", s.classes}};
}

nlohmann::json to_json(const LayerSpec& l) {
  nlohmann::json j = {{"kind", layer_kind_name(l.kind)}};
  switch (l.kind) {
    case LayerKind::conv2d:
      j.update({{"in", l.in}, {"out", l.out}, {"kernel", l.kernel}, {"stride", l.stride}, {"padding", l.padding}});
      break;
    case LayerKind::batch_norm2d:
      j.update({{"features", l.out}, {"eps", l.eps}});
      break;
    case LayerKind::linear:
      j.update({{"in", l.in}, {"out", l.out}, {"bias", l.bias}});
      break;
    default:
      break;
  }
  return j;
}

}  // namespace optbench::workloads
