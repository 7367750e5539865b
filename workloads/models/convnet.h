#pragma once
// A small image classifier made of what inference graph passes act on:
// Conv2d + BatchNorm2d (eval) + ReLU blocks, global average pooling and an MLP
// head. It is a torch::nn::Sequential plus a layer-by-layer description, so the
// same network can be rebuilt elsewhere (TorchScript source, a Python
// torch.nn model) and loaded with the same weights.
#include <torch/torch.h>

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/device.h"
#include "harness/experiment.h"

namespace optbench::workloads {

struct ConvNetSpec {
  std::int64_t image = 32;  // input height = width, 3 channels
  std::int64_t stem_channels = 16;
  std::int64_t stem_stride = 1;
  std::vector<std::int64_t> stages = {32, 64, 128};  // each: a stride-2 block, then a stride-1 block
  std::int64_t hidden = 256;                         // MLP head: Linear, ReLU, Linear
  std::int64_t classes = 10;
};

enum class LayerKind { conv2d, batch_norm2d, relu, global_avg_pool, flatten, linear };
const char* layer_kind_name(LayerKind k);

struct LayerSpec {
  LayerKind kind;
  std::int64_t in = 0, out = 0;                      // channels or features
  std::int64_t kernel = 0, stride = 1, padding = 0;  // conv2d (square, no bias)
  double eps = 1e-5;                                 // batch_norm2d
  bool bias = false;                                 // linear
};

struct ConvNet {
  torch::nn::Sequential net;  // net[i] is layers[i]
  std::vector<LayerSpec> layers;
};

// Seeded weights, and BatchNorm statistics and affine parameters that are not
// the identity (calibrated on a seeded batch), so folding BN into the
// convolution changes the weights; in eval mode, on the CPU.
ConvNet make_convnet(const ConvNetSpec& s, std::uint64_t seed);

// Built on first use and shared by the variants of a case (each copies it to
// its device), so building the cases costs nothing and every variant gets
// bit-identical weights.
class SharedConvNet {
 public:
  SharedConvNet(ConvNetSpec spec, std::uint64_t seed) : spec_(std::move(spec)), seed_(seed) {}
  const ConvNetSpec& spec() const { return spec_; }
  const ConvNet& get() {
    std::call_once(once_, [this] { net_ = make_convnet(spec_, seed_); });
    return net_;
  }

 private:
  ConvNetSpec spec_;
  std::uint64_t seed_;
  std::once_flag once_;
  ConvNet net_{nullptr, {}};
};

// A deep copy on `device` (weights are copied, not shared).
ConvNet clone_to(const ConvNet& n, const torch::Device& device);

// Layer i's tensors under their C++ frontend names (weight, bias, running_mean,
// running_var), in a fixed order.
std::vector<std::pair<std::string, torch::Tensor>> layer_tensors(const ConvNet& n, std::size_t i);

// Forward multiply-adds x 2 for one image.
double convnet_forward_flops(const ConvNetSpec& s);

// How closely another fp32 execution of the net (folded BatchNorm, other
// kernels or layouts) must reproduce the eager output: the sums are reordered,
// a few ulp per layer. GPU convolution algorithms (Winograd, FFT, per layout)
// differ from each other by more than the CPU's direct and MKL-DNN kernels.
Tolerance convnet_tolerance(DeviceKind d);

nlohmann::json to_json(const ConvNetSpec& s);
nlohmann::json to_json(const LayerSpec& l);

}  // namespace optbench::workloads
