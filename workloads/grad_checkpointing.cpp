// Gradient (activation) checkpointing: "trade compute for memory". Training
// steps of the GPT stack with every block's activations stored (baseline) vs
// blocks re-run in backward (workloads/training/checkpoint.h): every block,
// every 2nd block, and pairs of blocks as one checkpoint. The result is memory
// saved against time paid, per variant (Case::derive); gradients and loss
// traces must equal the baseline's within fp32 tolerance.
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "harness/case_result.h"
#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/transformer.h"
#include "workloads/training/checkpoint.h"
#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads {
namespace {

using json = nlohmann::json;

// Recomputation runs the same kernels on the same inputs: only reduction order
// (atomics) may differ, so the bars are fp32's, not a lower precision's.
constexpr double kLossRtol = 1e-5;
constexpr double kGradTol = 1e-5;  // per parameter: max |g - g_base| / max |g_base|
constexpr int kTraceSteps = 3;

struct GptTrainSpec {
  GptConfig cfg;
  torch::Tensor tokens, targets;
};

// std::nullopt: the model's own forward (the baseline, untouched).
class GptTraining final : public Workload {
 public:
  GptTraining(GptTrainSpec spec, std::optional<CheckpointPlan> plan, const torch::Device& device)
      : spec_(std::move(spec)), plan_(plan), device_(device), calls_(std::make_shared<std::int64_t>(0)) {
    state_ = build(0.01, 0.9);
  }

  void step() override {
    run_step(state_);
    ++steps_;
  }

  // Losses of a few steps from fresh weights (small plain SGD steps, so the
  // trace reflects the gradients without amplifying rounding).
  at::Tensor output() override {
    if (!trace_.defined()) record_trace();
    return trace_;
  }

  // The gradients of the first of those steps, one tensor per parameter.
  const std::vector<torch::Tensor>& first_step_grads() {
    if (!trace_.defined()) record_trace();
    return grads_;
  }

  json metrics() override {
    // Counted, not assumed: how often a block's forward ran per training step.
    if (!plan_ || steps_ == 0) return json::object();
    return {{"block_forwards_per_step", static_cast<double>(*calls_) / static_cast<double>(steps_)},
            {"blocks", spec_.cfg.layers}};
  }

 private:
  struct State {
    Gpt model{nullptr};
    std::vector<BlockFn> blocks;
    std::unique_ptr<torch::optim::SGD> opt;
  };

  State build(double lr, double momentum) const {
    State s;
    torch::manual_seed(0);  // every variant and every trace starts from the same weights
    s.model = Gpt(spec_.cfg);
    s.model->to(device_);
    s.model->train();
    for (std::size_t i = 0; i < s.model->blocks->size(); ++i) {
      auto blk = std::dynamic_pointer_cast<GptBlockImpl>(s.model->blocks->ptr(i));
      s.blocks.push_back([blk, calls = calls_](const torch::Tensor& x) {
        ++*calls;
        return blk->forward(x);
      });
    }
    s.opt = std::make_unique<torch::optim::SGD>(s.model->parameters(), torch::optim::SGDOptions(lr).momentum(momentum));
    return s;
  }

  // GptImpl::forward with the block loop handed to run_blocks.
  torch::Tensor forward(State& s) const {
    if (!plan_) return s.model->forward(spec_.tokens);
    auto& m = *s.model;
    auto positions = torch::arange(spec_.tokens.size(1), spec_.tokens.options());
    auto x = m.tok(spec_.tokens) + m.pos(positions).unsqueeze(0);
    x = run_blocks(s.blocks, x, *plan_);
    return m.head(m.ln(x));
  }

  torch::Tensor run_step(State& s) const {
    compat::NumericsFlagsGuard flags(compat::strict_fp32());
    compat::zero_grad(*s.opt, true);
    auto logits = forward(s);
    auto loss = torch::nn::functional::cross_entropy(logits.flatten(0, -2), spec_.targets.flatten());
    loss.backward();
    scoped_step(*s.opt);
    return loss.detach();
  }

  void record_trace() {
    const auto calls_before = *calls_;
    State fresh = build(1e-3, 0.0);
    std::vector<torch::Tensor> losses;
    for (int i = 0; i < kTraceSteps; ++i) {
      losses.push_back(run_step(fresh).to(torch::kCPU, torch::kDouble));
      if (i == 0)
        for (const auto& p : fresh.model->parameters())
          grads_.push_back(p.grad().defined() ? p.grad().detach().clone() : torch::Tensor());
    }
    trace_ = torch::stack(losses);
    *calls_ = calls_before;  // the trace's steps are not timed steps
  }

  GptTrainSpec spec_;
  std::optional<CheckpointPlan> plan_;
  torch::Device device_;
  std::shared_ptr<std::int64_t> calls_;
  State state_;
  std::int64_t steps_ = 0;
  torch::Tensor trace_;
  std::vector<torch::Tensor> grads_;
};

// Every parameter's gradient after the first step from fresh weights must match
// the baseline's; an undefined gradient (backward skipped a block) fails.
std::string verify_gradients(std::vector<Workload*>& w) {
  auto* base = dynamic_cast<GptTraining*>(w.at(0));
  auto* var = dynamic_cast<GptTraining*>(w.at(1));
  if (!base || !var) return "not a GPT training step";
  const auto& gb = base->first_step_grads();
  const auto& gv = var->first_step_grads();
  if (gb.size() != gv.size()) return "parameter counts differ";
  for (std::size_t i = 0; i < gb.size(); ++i) {
    if (!gb[i].defined()) return "baseline has no gradient for parameter " + std::to_string(i);
    if (!gv[i].defined()) return "no gradient for parameter " + std::to_string(i) + " (backward skipped it)";
  }
  const double worst = worst_grad_error(gv, gb);
  if (worst <= kGradTol) return "";
  char msg[160];
  std::snprintf(msg, sizeof msg, "gradients differ from the baseline's by %.3g (relative to each max; allowed %.3g)",
                worst, kGradTol);
  return msg;
}

// Memory saved vs time paid, per checkpointed variant, from the result itself.
json memory_vs_time(const CaseResult& r) {
  const auto& v = r.variants;
  auto median_of = [](const VariantResult& x) {
    return x.stats ? std::optional<double>(x.stats->median) : std::nullopt;
  };
  auto peak_of = [](const VariantResult& x) {
    return x.memory ? std::optional<double>(static_cast<double>(x.memory->allocated_bytes)) : std::nullopt;
  };
  const auto t0 = median_of(v.at(0));
  const auto m0 = peak_of(v.at(0));
  json out = {{"baseline_peak_allocated_bytes", m0 ? json(*m0) : json(nullptr)}, {"variants", json::object()}};
  for (std::size_t i = 1; i < v.size(); ++i) {
    json row = {{"status", to_string(v[i].status)}};
    const auto t = median_of(v[i]);
    const auto m = peak_of(v[i]);
    row["time_overhead_fraction"] = (t0 && t && *t0 > 0) ? json(*t / *t0 - 1.0) : json(nullptr);
    row["peak_allocated_bytes"] = m ? json(*m) : json(nullptr);
    row["memory_saved_bytes"] = (m0 && m) ? json(*m0 - *m) : json(nullptr);
    row["memory_saved_fraction"] = (m0 && m && *m0 > 0) ? json((*m0 - *m) / *m0) : json(nullptr);
    out["variants"][v[i].name] = row;
  }
  return out;
}

class GradCheckpointing final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "grad_checkpointing",
        "Gradient checkpointing: peak memory saved vs time paid",
        "activation checkpointing (torch.utils.checkpoint, reentrant): blocks re-run in backward instead of "
        "storing their activations",
        {"grad_checkpointing"},
        "fp32 training steps (TF32 off) of a GPT-style stack: all activations stored (baseline) vs every block "
        "checkpointed, every 2nd block checkpointed, and pairs of blocks as one checkpoint. Per variant: peak "
        "device memory saved and step time paid relative to the baseline (derived), block forwards counted per "
        "step; first-step gradients and a 3-step loss trace must equal the baseline's within fp32 tolerance. "
        "Peak memory is measured on GPUs only."};
    i.mechanism_counters = {"op_calls_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    const torch::Device device = torch_device(ctx.device);
    const GptConfig g = gpu ? GptConfig{12, 1024, 16, 1024, 32768} : GptConfig{4, 64, 2, 32, 256};
    const std::int64_t batch = gpu ? 8 : 4;
    auto gen = at::detail::createCPUGenerator(7);
    GptTrainSpec spec{g, torch::randint(0, g.vocab, {batch, g.seq}, gen, torch::kLong).to(device),
                      torch::randint(0, g.vocab, {batch, g.seq}, gen, torch::kLong).to(device)};

    Case c;
    c.name = "gpt_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq) +
             "_b" + std::to_string(batch);
    c.params = {{"model", "gpt"}, {"layers", g.layers}, {"hidden", g.hidden}, {"heads", g.heads},
                {"seq", g.seq},   {"vocab", g.vocab},   {"batch", batch},     {"precision", "fp32 (TF32 off)"}};
    c.units = WorkUnits{0, gpt_train_flops_per_token(g) * batch * g.seq, static_cast<double>(batch * g.seq), "tokens"};
    auto variant = [&](std::string name, std::string desc, std::optional<CheckpointPlan> plan) {
      return Variant{std::move(name), std::move(desc),
                     [spec, plan, device] { return std::make_unique<GptTraining>(spec, plan, device); }};
    };
    c.variants = {variant("no_checkpointing", "every block's activations stored (model's own forward)", std::nullopt),
                  variant("checkpoint_every_block", "each block checkpointed on its own", CheckpointPlan{1, 1}),
                  variant("checkpoint_every_2nd_block", "blocks 0, 2, 4, ... checkpointed, the others stored",
                          CheckpointPlan{1, 2}),
                  variant("checkpoint_pairs_of_blocks",
                          "two consecutive blocks per checkpoint (as "
                          "checkpoint_sequential with layers/2 segments)",
                          CheckpointPlan{2, 1})};
    c.tolerance = Tolerance{kLossRtol, 1e-7};  // the loss traces
    c.verify = verify_gradients;
    c.derive = memory_vs_time;
    const double state_bytes = 3.0 * 4.0 * (g.layers * 12.0 * g.hidden * g.hidden + 2.0 * g.vocab * g.hidden);
    c.notes = {{"model_state_bytes_approx", state_bytes},
               {"memory_note",
                "peak = what the variant adds at peak (weights, gradients, momentum, activations); "
                "model_state_bytes_approx is the weights+gradients+momentum part, the same in every "
                "variant"},
               {"checkpoint_note", "reentrant checkpoint (use_reentrant=True semantics); blocks have no dropout"}};
    return {c};
  }
};

OPTBENCH_REGISTER_EXPERIMENT(GradCheckpointing);

}  // namespace
}  // namespace optbench::workloads
