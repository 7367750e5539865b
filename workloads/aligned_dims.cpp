// Tensor-core alignment (seed 004 "Tensor Cores Usage"; NVIDIA's matmul guide):
// a matmul whose dimensions are multiples of 8/16/64 elements against its odd
// neighbours, per precision, and the same effect inside a training step (a
// Linear with 4096 vs 4095 features, a conv with 64 vs 63 channels). Speedups
// compare time per FLOP, since the odd shapes do slightly different work.
#include <torch/torch.h>

#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads {
namespace {

struct Precision {
  std::string name;
  at::ScalarType dtype;
  bool tf32;
  double tolerance;  // normalised error vs float64 (see CheckedAgainstFp64)
};

// fp16/tf32 round inputs to 10-bit mantissas (~5e-4), bf16 to 7 bits (~4e-3);
// accumulation is fp32 in every case.
std::vector<Precision> precisions(DeviceKind d) {
  if (d == DeviceKind::cpu) return {{"fp32", at::kFloat, false, 1e-5}};
  return {{"fp16", at::kHalf, false, 2e-3},
          {"bf16", at::kBFloat16, false, 1.5e-2},
          {"tf32", at::kFloat, true, 2e-3},
          {"fp32", at::kFloat, false, 1e-5}};
}

class Matmul final : public Workload, public CheckedAgainstFp64 {
 public:
  Matmul(std::int64_t m, std::int64_t n, std::int64_t k, const Precision& p, DeviceKind d) : tf32_(p.tf32) {
    const auto opts = at::TensorOptions().device(torch_device(d)).dtype(p.dtype);
    a_ = seeded_randn({m, k}, opts, 1);
    b_ = seeded_randn({k, n}, opts, 2);
    c_ = at::empty({m, n}, opts);
  }
  void step() override {
    compat::Tf32MatmulGuard g(tf32_);
    at::mm_out(c_, a_, b_);
  }
  double error_vs_fp64() override {
    // 64 rows are enough to catch a wrong kernel and cheap in float64.
    const auto rows = std::min<std::int64_t>(64, a_.size(0));
    const auto ref = at::mm(a_.narrow(0, 0, rows).to(at::kDouble), b_.to(at::kDouble));
    return normalised_error(c_.narrow(0, 0, rows), ref);
  }

 private:
  bool tf32_;
  at::Tensor a_, b_, c_;
};

Variant matmul_variant(std::int64_t m, std::int64_t n, std::int64_t k, const Precision& p, DeviceKind d) {
  const std::string name = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  Variant v{name, "C[m,n] = A[m,k] B[k,n]", [=] { return std::make_unique<Matmul>(m, n, k, p, d); }};
  v.units = WorkUnits{0, 2.0 * m * n * k, 0, "samples"};
  return v;
}

// One training step of a single layer: forward, mean loss, backward, SGD.
class LayerStep final : public Workload, public CheckedAgainstFp64 {
 public:
  LayerStep(torch::nn::AnyModule layer, torch::Tensor x, const Precision& p)
      : layer_(std::move(layer)), x_(std::move(x)), tf32_(p.tf32) {
    params_ = layer_.ptr()->parameters();
    for (auto& t : params_) t.set_data(t.data().to(x_.dtype()));
    opt_ = std::make_unique<torch::optim::SGD>(params_, torch::optim::SGDOptions(1e-3));
  }
  void step() override {
    compat::Tf32MatmulGuard g(tf32_);
    compat::zero_grad(*opt_, /*set_to_none=*/true);  // set to none, as Python's default
    auto y = layer_.forward(x_);
    y.to(at::kFloat).pow(2).mean().backward();
    scoped_step(*opt_);
  }
  double error_vs_fp64() override {
    torch::NoGradGuard ng;
    compat::Tf32MatmulGuard g(tf32_);
    const auto x1 = x_.narrow(0, 0, 1);
    const auto out = layer_.forward(x1);
    // The same layer in float64 on the same (current) parameters.
    auto ref_layer = layer_.clone();
    for (auto& t : ref_layer.ptr()->parameters()) t.set_data(t.data().to(at::kDouble));
    return normalised_error(out, ref_layer.forward(x1.to(at::kDouble)));
  }

 private:
  torch::nn::AnyModule layer_;
  torch::Tensor x_;
  bool tf32_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<torch::optim::SGD> opt_;
};

Variant linear_variant(std::int64_t batch, std::int64_t features, const Precision& p, DeviceKind d) {
  Variant v{"linear_" + std::to_string(features), "Linear(" + std::to_string(features) + ", same)", [=] {
              torch::manual_seed(0);
              torch::nn::Linear lin(features, features);
              lin->to(torch_device(d));
              auto x = seeded_randn({batch, features}, at::TensorOptions().device(torch_device(d)).dtype(p.dtype), 3);
              return std::make_unique<LayerStep>(torch::nn::AnyModule(lin), x, p);
            }};
  // Forward, grad-input and grad-weight matmuls: 3 x 2 b f^2.
  v.units = WorkUnits{0, 6.0 * batch * features * features, static_cast<double>(batch), "samples"};
  return v;
}

Variant conv_variant(std::int64_t batch, std::int64_t channels, std::int64_t hw, const Precision& p, DeviceKind d) {
  Variant v{"conv_" + std::to_string(channels), "Conv2d(" + std::to_string(channels) + ", same, 3x3)", [=] {
              torch::manual_seed(0);
              torch::nn::Conv2d conv(torch::nn::Conv2dOptions(channels, channels, 3).padding(1));
              conv->to(torch_device(d));
              auto x = seeded_randn({batch, channels, hw, hw},
                                    at::TensorOptions().device(torch_device(d)).dtype(p.dtype), 4);
              return std::make_unique<LayerStep>(torch::nn::AnyModule(conv), x, p);
            }};
  v.units = WorkUnits{0, 3.0 * 2 * batch * channels * channels * 9 * hw * hw, static_cast<double>(batch), "samples"};
  return v;
}

Case pair_case(std::string name, nlohmann::json params, Variant odd, Variant aligned, const Precision& p) {
  Case c;
  c.name = std::move(name);
  c.params = std::move(params);
  c.params["precision"] = p.name;
  c.units = *odd.units;
  c.variants = {std::move(odd), std::move(aligned)};
  c.verify = verify_against_fp64(p.tolerance);
  c.notes = {{"peak_kind", p.name}};
  return c;
}

class AlignedDims final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"aligned_dims",
            "Tensor-core aligned vs odd tensor dimensions",
            "dimensions that are multiples of 8/16/64 elements",
            {"tensor_core_alignment"},
            "Matmuls at aligned sizes against odd neighbours (4095, 4097, 4100, 4104 vs 4096; K = 1023 vs 1024), in "
            "fp16, bf16, TF32 and fp32, plus one training step of Linear(4095 vs 4096) and Conv2d(63 vs 64 "
            "channels). Speedup = time per FLOP of the odd shape over that of the aligned one."};
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    const std::int64_t n = gpu ? 4096 : 512, tall_mn = gpu ? 8192 : 512, k = gpu ? 1024 : 256;
    std::vector<Case> out;
    for (const Precision& p : precisions(d)) {
      for (std::int64_t o : {n - 1, n + 1, n + 4, n + 8}) {
        if (!keeps_case("matmul_" + p.name + "_" + std::to_string(o) + "_vs_" + std::to_string(n), ctx)) continue;
        out.push_back(pair_case("matmul_" + p.name + "_" + std::to_string(o) + "_vs_" + std::to_string(n),
                                {{"shape", "square"}, {"odd", o}, {"aligned", n}}, matmul_variant(o, o, o, p, d),
                                matmul_variant(n, n, n, p, d), p));
      }
      out.push_back(pair_case("matmul_" + p.name + "_tall_k" + std::to_string(k - 1) + "_vs_" + std::to_string(k),
                              {{"shape", "tall"}, {"m", tall_mn}, {"odd", k - 1}, {"aligned", k}},
                              matmul_variant(tall_mn, tall_mn, k - 1, p, d), matmul_variant(tall_mn, tall_mn, k, p, d),
                              p));
    }
    // Layers in a training step: half precision on a GPU (where alignment matters
    // for tensor cores), fp32 on a CPU.
    const Precision lp = gpu ? Precision{"fp16", at::kHalf, false, 2e-3} : precisions(d).front();
    const std::int64_t features = gpu ? 4096 : 512, batch = gpu ? 8192 : 64;
    out.push_back(pair_case("linear_step_" + std::to_string(features - 1) + "_vs_" + std::to_string(features),
                            {{"layer", "linear"}, {"odd", features - 1}, {"aligned", features}},
                            linear_variant(batch, features - 1, lp, d), linear_variant(batch, features, lp, d), lp));
    const std::int64_t cb = gpu ? 64 : 4, hw = gpu ? 56 : 28;
    out.push_back(pair_case("conv_step_63_vs_64", {{"layer", "conv2d"}, {"odd", 63}, {"aligned", 64}},
                            conv_variant(cb, 63, hw, lp, d), conv_variant(cb, 64, hw, lp, d), lp));
    for (auto& c : out) c.hold_stream = c.params.contains("shape");  // kernel-level cases only
    return out;
  }

  // Of the odd square sizes, n+1 (misaligned to everything, as n-1 is) only in
  // --full; quick also leaves out n+4 (aligned to 4, not 8).
  bool keeps_case(const std::string& name, const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    const std::int64_t n = gpu ? 4096 : 512;
    auto square = [&](std::int64_t o) {
      return name.find("_" + std::to_string(o) + "_vs_" + std::to_string(n)) != std::string::npos;
    };
    if (ctx.profile == RunProfile::full || name.rfind("matmul_", 0) != 0) return true;
    if (square(n + 1)) return false;
    return ctx.profile != RunProfile::quick || !square(n + 4);
  }
};

OPTBENCH_REGISTER_EXPERIMENT(AlignedDims);

}  // namespace
}  // namespace optbench::workloads
