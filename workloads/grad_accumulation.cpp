// Seed 000's gradient accumulation ("simulate a larger effective batch size when
// GPU memory limits the actual batch size"): one optimizer step from k
// micro-batches of b vs from one batch of k*b, for a GPT stack (LayerNorm is
// per token, so without BatchNorm the accumulated gradients are the large
// batch's). Same samples per step in every variant: samples/s shows what the
// smaller kernels cost, the peak memory what accumulation saves.
#include <torch/torch.h>

#include <cstdio>

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/models/transformer.h"
#include "workloads/training/accumulate_step.h"

namespace optbench::workloads {
namespace {

// Each variant's peak device memory as a fraction of the baseline's.
nlohmann::json memory_vs_baseline(const CaseResult& r) {
  nlohmann::json out = nlohmann::json::object();
  const auto& v = r.variants;
  if (v.empty() || !v[0].memory) return out;
  const double base = static_cast<double>(v[0].memory->allocated_bytes);
  if (!(base > 0)) return out;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].memory)
      out["peak_allocated_vs_baseline"][v[i].name] = static_cast<double>(v[i].memory->allocated_bytes) / base;
  return out;
}

class GradAccumulation final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "grad_accumulation",
        "Gradient accumulation: k micro-batches of b vs one batch of k*b",
        "k forward/backward passes on micro-batches (loss / k), one optimizer step",
        {"grad_accumulation"},
        "FP32 (TF32 off) training steps of a GPT stack with the same samples per optimizer step: one batch of "
        "k*b (baseline) vs k = 2, 4, 8 accumulated micro-batches, each loss divided by k, gradients reset once "
        "per cycle. samples/s and peak device memory; the first step's gradients from the same fresh weights "
        "must equal the large batch's (per-tensor max |diff| / max |grad|)."};
    i.mechanism_counters = {"op_calls_per_step", "optimizer_steps_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    const torch::Device device = torch_device(d);
    const GptConfig g = gpu ? GptConfig{6, 1024, 16, 1024, 32768} : GptConfig{2, 32, 2, 16, 128};
    const std::int64_t batch = gpu ? 16 : 8;
    torch::manual_seed(7);
    const auto x = torch::randint(0, g.vocab, {batch, g.seq}, torch::kLong).to(device);
    const auto y = torch::randint(0, g.vocab, {batch, g.seq}, torch::kLong).to(device);
    const NetFactory factory = [g] {
      torch::manual_seed(0);
      return make_net(Gpt(g));
    };
    auto variant = [=](std::int64_t k) {
      const std::string name = k == 1 ? "one_batch" : "accumulate_k" + std::to_string(k);
      const std::string desc = k == 1 ? "one batch of " + std::to_string(batch)
                                      : std::to_string(k) + " micro-batches of " + std::to_string(batch / k) +
                                            ", loss / " + std::to_string(k) + ", one step";
      Variant v{name, desc, [=] { return std::make_unique<AccumulateStep>(factory, x, y, k, device); }};
      v.params = {{"micro_batches", k}};
      return v;
    };

    Case c;
    c.name = "gpt_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq) +
             "_batch" + std::to_string(batch);
    c.params = {{"model", "gpt"}, {"batch", batch},   {"layers", g.layers},           {"hidden", g.hidden},
                {"seq", g.seq},   {"vocab", g.vocab}, {"precision", "fp32, TF32 off"}};
    c.units = WorkUnits{0, gpt_train_flops_per_token(g) * batch * g.seq, static_cast<double>(batch), "samples"};
    c.variants = {variant(1), variant(2), variant(4), variant(8)};
    // FP32 sums in a different order (k smaller GEMMs): rounding-level differences only.
    const double bound = gpu ? 1e-4 : 1e-5;
    c.verify = verify_accumulated_grads(bound);
    c.derive = memory_vs_baseline;
    char check[120];
    std::snprintf(check, sizeof check,
                  "first step from the same fresh weights; per-tensor max |diff| / max |grad| <= %g", bound);
    c.notes = {{"gradient_check", check},
               {"memory_note",
                "peak memory includes weights, gradients and momentum (the same in every variant); "
                "the difference is activations"}};
    return {c};
  }
};

OPTBENCH_REGISTER_EXPERIMENT(GradAccumulation);

}  // namespace
}  // namespace optbench::workloads
