// Checklist #10, AMP ("Very High, 2x speed on RTX/A100 GPUs"), and seed 001's
// "16-bit operations are ~2-4x faster on Tensor Cores": full training steps of a
// ResNet-50 and a GPT-style transformer in FP32 (TF32 off), TF32, AMP fp16 with
// a gradient scaler and AMP bf16, and for the conv net each also channels_last.
// Throughput and peak memory per variant; loss traces verified against FP32.
#include <ATen/cpu/Utils.h>
#include <torch/torch.h>

#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/resnet.h"
#include "workloads/models/transformer.h"
#include "workloads/training/train_step.h"
#include "workloads/training/verify_losses.h"

namespace optbench::workloads {
namespace {

std::vector<Precision> precisions_for(DeviceKind d) {
  if (d == DeviceKind::cuda) return {Precision::fp32, Precision::tf32, Precision::amp_fp16, Precision::amp_bf16};
  // No TF32 on a CPU; CPU autocast in bf16, the low-precision format of CPU
  // matrix units.
  return {Precision::fp32, Precision::amp_bf16};
}

// The precision word of the params vocabulary (harness/results.schema.json).
const char* precision_param(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::amp_fp16:
      return "fp16";
    case Precision::amp_bf16:
      return "bf16";
  }
  return "?";
}

// conv: the net has convolutions, so the FP32 a PyTorch user gets by default on a GPU
// (cuDNN may use TF32, matmul may not) is the tf32 variant; without them it is fp32.
Case training_case(std::string name, nlohmann::json params, NetFactory factory, BatchSource batches,
                   const std::vector<std::pair<Precision, bool>>& variants, WorkUnits units, DeviceKind d, bool conv) {
  Case c;
  c.name = std::move(name);
  c.params = std::move(params);
  c.units = units;
  const torch::Device device = torch_device(d);
  for (const auto& [p, cl] : variants) {
    const std::string vname = std::string(to_string(p)) + (cl ? "_channels_last" : "");
    TrainOptions o;
    o.precision = p;
    o.channels_last = cl;
    Variant v{vname, std::string(to_string(p)) + (cl ? ", channels_last" : ", NCHW"),
              [=] { return std::make_unique<TrainStep>(factory, batches, o, device); }};
    v.params = {{"precision", precision_param(p)},
                {"layout", cl ? "channels_last" : "contiguous"},
                {"default_fp32", !cl && p == (conv ? Precision::tf32 : Precision::fp32)}};
    c.variants.push_back(std::move(v));
  }
  // The AMP claim is judged against the default FP32: record that ratio too.
  for (std::size_t i = 1; i < c.variants.size(); ++i)
    if (c.variants[i].params.value("default_fp32", false)) c.also_compare_against.push_back(c.variants[i].name);
  c.verify = verify_loss_traces;
  c.notes = {
      {"tf32_note", "fp32 = TF32 off for matmul and cuDNN; amp_* keep the defaults (matmul TF32 off, cuDNN TF32 on)"}};
  return c;
}

BatchSource fixed_batch(torch::Tensor x, torch::Tensor y) {
  return [x, y](std::int64_t) { return std::make_pair(x, y); };
}

// Whether this CPU does bf16 math natively (AVX512-BF16 or AMX); None where the
// capability map names neither key (an unknown build: run as before).
std::optional<bool> cpu_has_native_bf16() {
  const auto caps = at::cpu::get_cpu_capabilities();
  std::optional<bool> native;
  for (const char* key : {"avx512_bf16", "avx512bf16", "amx_bf16"})
    if (const auto it = caps.find(key); it != caps.end() && it->second.isBool())
      native = native.value_or(false) || it->second.toBool();
  return native;
}

class MixedPrecision final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"mixed_precision",
            "FP32 vs TF32 vs AMP (fp16 + GradScaler, bf16), with channels_last",
            "automatic mixed precision with a gradient scaler; TF32; channels_last for convolutions",
            {"amp", "fp16_tensor_cores"},
            "Full training steps (forward, loss, backward, SGD) of ResNet-50 (torchvision layout) and a GPT-style "
            "transformer stack, synthetic data resident on the device. Variants: FP32 with TF32 off (baseline), "
            "TF32, AMP fp16 with GradScaler, AMP bf16; the conv net also in channels_last. samples/s and peak "
            "memory; the loss of 3 steps from the same weights must track FP32's (5% for AMP, 1% TF32)."};
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    const auto dev_opts = torch::TensorOptions().device(torch_device(d));
    std::vector<Case> out;

    // ResNet-50: 224x224 on a GPU; a small image on a CPU so CI stays quick.
    const std::int64_t rb = gpu ? 128 : 8, side = gpu ? 224 : 32;
    std::vector<std::pair<Precision, bool>> rv;
    for (bool cl : {false, true})
      for (Precision p : precisions_for(d)) rv.push_back({p, cl});
    const double img_flops = kResNet50ForwardFlops224 * (side * side) / (224.0 * 224.0);
    out.push_back(training_case(
        "resnet50_b" + std::to_string(rb) + "_" + std::to_string(side),
        {{"model", "resnet50"}, {"batch", rb}, {"image", side}},
        [] {
          torch::manual_seed(0);
          return make_net(resnet50(1000));
        },
        fixed_batch(seeded_randn({rb, 3, side, side}, dev_opts, 21),
                    torch::randint(0, 1000, {rb}, torch::TensorOptions().dtype(torch::kLong)).to(torch_device(d))),
        rv, WorkUnits{0, 3.0 * img_flops * rb, static_cast<double>(rb), "images"}, d, true));

    const GptConfig g = gpu ? GptConfig{6, 1024, 16, 1024, 32768} : GptConfig{2, 128, 2, 64, 512};
    const std::int64_t gb = gpu ? 8 : 4;
    std::vector<std::pair<Precision, bool>> gv;
    for (Precision p : precisions_for(d)) gv.push_back({p, false});
    out.push_back(training_case(
        "gpt_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq),
        {{"model", "gpt"},
         {"batch", gb},
         {"layers", g.layers},
         {"hidden", g.hidden},
         {"seq", g.seq},
         {"vocab", g.vocab}},
        [g] {
          torch::manual_seed(0);
          return make_net(Gpt(g));
        },
        fixed_batch(torch::randint(0, g.vocab, {gb, g.seq}, torch::kLong).to(torch_device(d)),
                    torch::randint(0, g.vocab, {gb, g.seq}, torch::kLong).to(torch_device(d))),
        gv, WorkUnits{0, gpt_train_flops_per_token(g) * gb * g.seq, static_cast<double>(gb * g.seq), "tokens"}, d,
        false));
    // Without native bf16 a CPU emulates it: AMP bf16 steps take many times FP32's,
    // minutes a run for a figure that says nothing of AMP on a GPU (both claims are
    // about GPUs).
    if (!gpu && cpu_has_native_bf16() == false)
      for (auto& c : out)
        c.skip_reason =
            "this CPU has no native bf16 (AVX512-BF16 or AMX): AMP bf16 would be emulated, many times "
            "slower than FP32, which says nothing of AMP on a GPU (the claims are about GPUs)";
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(MixedPrecision);

}  // namespace
}  // namespace optbench::workloads
