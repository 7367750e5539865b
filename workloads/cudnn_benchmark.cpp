// Checklist #4, cudnn.benchmark ("Moderate, 5-15%"; seed 002 also "10-50% in
// some CNN-heavy models"), and seed 002's warnings: autotuning costs time on the
// first iteration and on every new input shape, and determinism has a price.
// ResNet-50 training steps with fixed shapes (steady state, the first-iteration
// cost and the break-even step count) in TF32 NCHW and in AMP fp16 channels_last
// (where benchmark mode has tensor-core kernels to choose from), with a new input
// shape every step, and with cudnn.deterministic on vs off.
//
// Every variant runs in a process of its own: PyTorch's cuDNN plan cache is
// keyed without the benchmark flag, so a benchmark-on variant warmed up after a
// benchmark-off one in the same process finds heuristic plans and never tunes.
#include <torch/torch.h>

#include <optional>
#include <string>

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/resnet.h"
#include "workloads/shapes.h"
#include "workloads/training/train_step.h"
#include "workloads/training/verify_losses.h"

namespace optbench::workloads {
namespace {

NetFactory resnet_factory() {
  return [] {
    torch::manual_seed(0);
    return make_net(resnet50(1000));
  };
}

Variant train_variant(std::string name, std::string desc, BatchSource batches, TrainOptions o, DeviceKind d) {
  Variant v{std::move(name), std::move(desc),
            [=] { return std::make_unique<TrainStep>(resnet_factory(), batches, o, torch_device(d)); }};
  v.params = {{"cudnn_benchmark", o.cudnn_benchmark}};  // the report's claim keys on it
  return v;
}

// One-time costs, from first steps taken in fresh processes (cold): the first
// benchmark-on step over its steady state, autotuning alone (over the cold first
// step without benchmark mode, which pays the same handle creation and module
// loading), and the steps after which benchmark mode has paid for itself. A
// cold first step is one observation per process: the median over the
// processes the harness took it in (Case::cold_first_step), and the label says
// how many.
nlohmann::json break_even(const CaseResult& r) {
  const auto& v = r.variants;
  auto first = [](const VariantResult& x) { return x.cold_first_run_s() ? x.cold_first_run_s() : x.first_run_s; };
  if (v.size() < 2 || !v[0].stats || !v[1].stats || !first(v[0]) || !first(v[1])) return nlohmann::json::object();
  const double off = v[0].stats->median, on = v[1].stats->median;
  const double first_off = *first(v[0]), first_on = *first(v[1]);
  const double tuning = std::max(0.0, first_on - first_off);
  auto count = [](const VariantResult& x) {
    return x.cold_first_runs_s.empty() ? std::size_t{1} : x.cold_first_runs_s.size();
  };
  const std::size_t processes = std::min(count(v[0]), count(v[1]));  // the fewer either median rests on
  std::string label = "warm";
  if (v[0].process == ProcessKind::fresh)
    label = processes > 1 ? "cold: median of " + std::to_string(processes) + " fresh processes per variant"
                          : "cold: one fresh process per variant, one observation each (no median, no interval)";
  nlohmann::json out = {{"first_step_extra_s", std::max(0.0, first_on - on)},
                        {"autotune_first_step_extra_s", tuning},
                        {"steady_gain_per_step_s", off - on},
                        {"first_step_processes", processes},
                        {"first_steps", label}};
  out["break_even_steps"] = off > on ? nlohmann::json(tuning / (off - on)) : nlohmann::json(nullptr);
  return out;
}

constexpr std::int64_t kMinPx = 160, kMaxPx = 224;  // within the 224 px input

class CudnnBenchmark final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"cudnn_benchmark",
            "cudnn.benchmark on/off, with fixed and changing shapes; cudnn.deterministic",
            "torch.backends.cudnn.benchmark = True (autotuned convolution algorithms)",
            {"cudnn_benchmark"},
            "ResNet-50 training steps (fp32 convolutions with cuDNN's default TF32) with cudnn.benchmark off "
            "(baseline) vs on, each variant in a fresh process: steady-state throughput, the cold first step's "
            "autotuning cost and the break-even step count, in TF32 NCHW and AMP fp16 channels_last; the same "
            "with a new input shape every step (where benchmark mode hurts); and the cost of cudnn.deterministic "
            "(baseline: deterministic on).",
            {DeviceKind::cuda},
            "new_shape_every_step_b16 (benchmark mode autotunes every layer at every new shape: one round took "
            "24 s of a quick run on an H100, and the floor is 6) and fixed_shape_b64_224 (the TF32 twin of the AMP "
            "case); the standard profile leaves out new_shape_every_step_b16 too: no claim's verdict reads it, and "
            "its autotuning in every process was the largest share of a GPU run (--full runs it)"};
  }

  std::string unsupported_reason(const RunContext& ctx) const override {
    if (ctx.device != DeviceKind::cuda) return "cuDNN is a GPU library";
    return Experiment::unsupported_reason(ctx);
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const auto dev = torch::TensorOptions().device(torch_device(d));
    const std::int64_t batch = 64, small_batch = 16;
    const auto x = seeded_randn({batch, 3, 224, 224}, dev, 31);
    const auto y = torch::randint(0, 1000, {batch}, torch::kLong).to(torch_device(d));
    const BatchSource fixed = [x, y](std::int64_t) { return std::make_pair(x, y); };
    // A new (H, W) within the 224 px input every step, from a sequence that does
    // not repeat for thousands of steps, as with variable-size images. Batch 16:
    // benchmark mode tunes every layer again at every step, seconds each.
    const auto xs = x.narrow(0, 0, small_batch), ys = y.narrow(0, 0, small_batch);
    const BatchSource varying = [xs, ys](std::int64_t i) {
      const auto [h, w] = varying_shape(i, kMinPx, kMaxPx);
      return std::make_pair(xs.narrow(2, 0, h).narrow(3, 0, w), ys);
    };
    auto opts = [](bool bench, bool det, Precision p = Precision::tf32, bool channels_last = false) {
      TrainOptions o;
      o.precision = p;  // TF32: PyTorch's default for convolutions
      o.channels_last = channels_last;
      o.cudnn_benchmark = bench;
      o.cudnn_deterministic = det;
      return o;
    };
    WorkUnits units{0, 3.0 * kResNet50ForwardFlops224 * batch, static_cast<double>(batch), "images"};
    const nlohmann::json why_isolated =
        "each variant in a fresh process: cuDNN's plan cache is keyed without the benchmark flag, so in a shared "
        "process the second variant would reuse the plans the first chose; first_run_s is a cold first step";
    auto paired = [&](std::string name, nlohmann::json params, WorkUnits u, const BatchSource& src, Precision p,
                      bool cl) {
      Case c;
      c.name = std::move(name);
      c.params = std::move(params);
      c.units = u;
      c.isolate = true;
      c.notes = {{"isolation", why_isolated}};
      c.variants = {train_variant("benchmark_off", "cudnn.benchmark = False", src, opts(false, false, p, cl), d),
                    train_variant("benchmark_on", "cudnn.benchmark = True", src, opts(true, false, p, cl), d)};
      c.verify = verify_loss_traces;
      c.derive = break_even;
      c.cold_first_step = true;
      return c;
    };

    Case fixed_case = paired("fixed_shape_b64_224", {{"batch", batch}, {"shape", "fixed"}, {"precision", "tf32"}},
                             units, fixed, Precision::tf32, false);
    Case amp_case =
        paired("fixed_shape_amp_fp16_channels_last_b64_224",
               {{"batch", batch}, {"shape", "fixed"}, {"precision", "amp_fp16"}, {"memory_format", "channels_last"}},
               units, fixed, Precision::amp_fp16, true);
    Case varying_case =
        paired("new_shape_every_step_b16",
               {{"batch", small_batch}, {"shape", "new every step, 160-224 px"}, {"precision", "tf32"}},
               WorkUnits{0, 0, static_cast<double>(small_batch), "images"}, varying, Precision::tf32, false);

    Case det_case;
    det_case.name = "deterministic_cost_b64_224";
    det_case.params = {{"batch", batch}, {"shape", "fixed"}};
    det_case.units = units;
    det_case.isolate = true;
    det_case.notes = {{"isolation", why_isolated}};
    det_case.variants = {
        train_variant("deterministic", "cudnn.deterministic = True", fixed, opts(false, true), d),
        train_variant("nondeterministic", "cudnn.deterministic = False (default)", fixed, opts(false, false), d)};
    det_case.verify = verify_loss_traces;
    std::vector<Case> out;
    for (Case* c : {&fixed_case, &amp_case, &varying_case, &det_case})
      if (keeps_case(c->name, ctx)) out.push_back(std::move(*c));
    return out;
  }

  // info().quick_leaves_out says why each profile leaves out what it does.
  bool keeps_case(const std::string& name, const RunContext& ctx) const override {
    if (ctx.profile == RunProfile::quick) return name != "fixed_shape_b64_224" && name != "new_shape_every_step_b16";
    return ctx.profile == RunProfile::full || name != "new_shape_every_step_b16";
  }
};

OPTBENCH_REGISTER_EXPERIMENT(CudnnBenchmark);

}  // namespace
}  // namespace optbench::workloads
