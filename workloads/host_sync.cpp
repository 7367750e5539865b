// Seed 000's "minimize explicit synchronizations": a training loop that logs
// loss.item() every step makes the host wait for the GPU, so the next step's
// kernels are launched only after the GPU has drained (no run-ahead). The same
// GPT training steps reading the loss every step (baseline), every 10 steps,
// and never in the timed loop.
#include <torch/torch.h>

#include "harness/registry.h"
#include "workloads/models/transformer.h"
#include "workloads/training/train_step.h"

namespace optbench::workloads {
namespace {

// The timed unit is a stretch of training steps, so that a sample holds whole
// logging intervals (one step per sample would leave "every 10th" to the median's
// mercy). Every sample starts from a synchronised device: every variant pays
// one drain per unit, which no_item cannot avoid here.
constexpr int kStepsPerUnit = 20;

using TrainMaker = std::function<std::unique_ptr<TrainStep>()>;

class ReadLossLoop final : public Workload {
 public:
  // every: read the loss on the host every `every` steps; 0 = never.
  ReadLossLoop(TrainMaker make, int every) : make_(std::move(make)), train_(make_()), every_(every) {}

  void step() override { run_unit(*train_, nullptr); }

  // Reading the loss must not change training: one unit of this very loop from
  // fresh weights, every step's loss kept, is compared with the baseline's.
  at::Tensor output() override {
    if (!trace_.defined()) {
      auto fresh = make_();
      std::vector<torch::Tensor> losses;
      run_unit(*fresh, &losses);
      trace_ = torch::stack(losses).to(torch::kCPU, torch::kDouble);
    }
    return trace_;
  }
  nlohmann::json metrics() override { return {{"loss_reads", reads_}, {"steps", steps_}, {"last_logged", logged_}}; }

 private:
  // A unit is a whole number of logging intervals, so counting within it is enough.
  void run_unit(TrainStep& t, std::vector<torch::Tensor>* keep) {
    static_assert(kStepsPerUnit % 10 == 0, "whole logging intervals");
    for (int i = 1; i <= kStepsPerUnit; ++i) {
      t.step();
      if (keep) keep->push_back(t.last_loss());
      if (every_ > 0 && i % every_ == 0) {
        const double loss = t.last_loss().item<double>();  // blocks until the step has run
        if (!keep) {
          logged_ = loss;
          ++reads_;
        }
      }
    }
    if (!keep) steps_ += kStepsPerUnit;
  }

  TrainMaker make_;
  std::unique_ptr<TrainStep> train_;
  int every_;
  std::int64_t steps_ = 0, reads_ = 0;
  double logged_ = 0;
  at::Tensor trace_;
};

class HostSync final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "host_sync",
        "Host synchronisation in the training loop: loss.item() every step vs every 10 vs never",
        "read the loss on the host rarely (every 10 steps) or not in the loop at all",
        {"host_sync"},
        "FP32 (TF32 off) training steps of small GPT stacks, timed back to back: the loss read with .item() "
        "after every step (baseline: the host waits for the GPU each step), every 10th step, and never. The "
        "losses of one timed unit (20 steps) from the same fresh weights must match. On a CPU .item() is not a "
        "device sync: no effect expected."};
    i.mechanism_counters = {"host_reads_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    std::vector<Case> out;
    // On a GPU: a small step where launch time and GPU time are comparable (the
    // most a sync can cost), and a larger, GPU-bound one (where it costs little).
    std::vector<std::pair<GptConfig, std::int64_t>> sizes;
    if (gpu) {
      sizes = {{GptConfig{2, 256, 4, 128, 8192}, 32}, {GptConfig{6, 768, 12, 256, 16384}, 8}};
    } else {
      sizes = {{GptConfig{1, 32, 2, 16, 128}, 2}};
    }
    for (const auto& [g, batch] : sizes) out.push_back(make_case(g, batch, d));
    return out;
  }

 private:
  static Case make_case(const GptConfig& g, std::int64_t batch, DeviceKind d) {
    const torch::Device device = torch_device(d);
    torch::manual_seed(13);
    const auto x = torch::randint(0, g.vocab, {batch, g.seq}, torch::kLong).to(device);
    const auto y = torch::randint(0, g.vocab, {batch, g.seq}, torch::kLong).to(device);
    const BatchSource batches = [x, y](std::int64_t) { return std::make_pair(x, y); };
    const NetFactory factory = [g] {
      torch::manual_seed(0);
      return make_net(Gpt(g));
    };
    auto variant = [=](std::string name, std::string desc, int every) {
      const TrainMaker make = [=] { return std::make_unique<TrainStep>(factory, batches, TrainOptions{}, device); };
      return Variant{std::move(name), std::move(desc), [=] { return std::make_unique<ReadLossLoop>(make, every); }};
    };
    Case c;
    c.name = "gpt_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq) +
             "_b" + std::to_string(batch);
    c.params = {{"model", "gpt"},
                {"batch", batch},
                {"layers", g.layers},
                {"hidden", g.hidden},
                {"seq", g.seq},
                {"vocab", g.vocab},
                {"precision", "fp32, TF32 off"},
                {"steps_per_unit", kStepsPerUnit}};
    const double tokens = static_cast<double>(kStepsPerUnit * batch * g.seq);
    c.units = WorkUnits{0, gpt_train_flops_per_token(g) * tokens, tokens, "tokens"};
    c.variants = {variant("item_every_step", "loss.item() after every step", 1),
                  variant("item_every_10", "loss.item() every 10th step", 10),
                  variant("no_item", "the loss stays on the device", 0)};
    c.tolerance = Tolerance{1e-5, 1e-7};  // the same kernels: equal up to nondeterministic reductions
    c.notes = {
        {"timing", std::to_string(kStepsPerUnit) +
                       " training steps per timed unit, back to back between two events. Each sample "
                       "starts from a synchronised device, so every variant pays one drain per unit; "
                       "item_every_10's read at step 20 coincides with it, its read at step 10 does not"},
        {"verification", "the losses of one unit from fresh weights, every step's, rtol 1e-5"},
        {"cpu_note", "on a CPU, .item() is not a device synchronisation: no effect expected (claim is GPU-only)"}};
    return c;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(HostSync);

}  // namespace
}  // namespace optbench::workloads
