// CUDA graphs (a claim beyond the seeds' checklists, report/sources.md): a whole training step
// (forward, cross-entropy, backward, SGD with momentum) captured once into an
// at::cuda::CUDAGraph and replayed every step, vs the same step launched
// eagerly. Expected to pay off where the step is launch-bound (a small MLP on a
// small batch: ~100 tiny kernels) and to change little where the GPU is busy
// (a GPT block stack at a realistic size). PyTorch's whole-network recipe
// (torch/cuda notes, "CUDA Graphs"): warm up a few steps on a side stream, set
// the gradients to None so backward allocates them from the graph's private
// pool, capture on the side stream, then per step copy the batch into static
// input tensors and replay on the current stream (so the harness's events
// bracket the replay). Verified by the loss of every step and the distance every
// parameter moved, eager vs warm-up + replay, from the same fresh weights.
#include <torch/torch.h>

#include <chrono>
#include <stdexcept>

#if OPTBENCH_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "harness/compat/cuda_graph.h"
#endif

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/mlp.h"
#include "workloads/models/transformer.h"
#include "workloads/training/sgd_trainer.h"

namespace optbench::workloads {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWarmupSteps = 3;   // eager steps on the side stream before capture (the docs' recipe)
constexpr int kTraceReplays = 3;  // replayed steps in the verification trace, after the warm-up
constexpr int kBatches = 4;       // distinct batches in rotation: a replay reading stale input shows

// Both traces, eager and graph, come from these steps; a few steps of SGD with
// momentum move every weight well above fp32 rounding.
const TraceTolerance kTolerance{1e-4, 1e-3};

struct MlpSpec {
  std::int64_t batch, width, depth, classes;
};

NetFactory mlp_factory(MlpSpec s) {
  return [s] {
    torch::manual_seed(0);
    return make_net(gelu_mlp(s.depth, s.width, s.classes));
  };
}

// GPT blocks on activations that are already embedded: the stack, a final
// LayerNorm and the vocabulary head. (The embedding is left out: its backward
// is the one op of a GPT whose capture-safety differs between releases.)
struct GptStackImpl : torch::nn::Module {
  explicit GptStackImpl(const GptConfig& c) {
    blocks = register_module("blocks", torch::nn::ModuleList());
    for (std::int64_t i = 0; i < c.layers; ++i) blocks->push_back(GptBlock(c.hidden, c.heads));
    ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden})));
    head = register_module("head", torch::nn::Linear(c.hidden, c.vocab));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (const auto& blk : *blocks) x = blk->as<GptBlock>()->forward(x);
    return head(ln(x));
  }
  torch::nn::ModuleList blocks;
  torch::nn::LayerNorm ln{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(GptStack);

NetFactory gpt_factory(GptConfig c) {
  return [c] {
    torch::manual_seed(0);
    return make_net(GptStack(c));
  };
}

// kBatches (input, targets) pairs, the same on every variant and every run.
std::vector<Batch> make_batches(at::IntArrayRef x_sizes, at::IntArrayRef y_sizes, std::int64_t classes,
                                const torch::Device& device) {
  std::vector<Batch> out;
  const auto dev = torch::TensorOptions().device(device);
  for (int k = 0; k < kBatches; ++k) {
    auto gen = at::detail::createCPUGenerator(1000 + k);
    auto y = at::randint(classes, y_sizes, gen, torch::TensorOptions().dtype(torch::kLong)).to(device);
    out.emplace_back(seeded_randn(x_sizes, dev, 100 + k), y);
  }
  return out;
}

class EagerStep final : public Workload, public TracedStep {
 public:
  EagerStep(SgdSpec spec, const torch::Device& device)
      : spec_(std::move(spec)), device_(device), trainer_(spec_, device_) {}

  void step() override {
    const auto& b = spec_.batch(step_++);
    trainer_.step(b.first, b.second);
  }

  StepTrace trace() override {
    if (!trace_.losses.defined()) trace_ = eager_trace(spec_, device_, kWarmupSteps + kTraceReplays);
    return trace_;
  }
  at::Tensor output() override { return trace().flat(); }

 private:
  SgdSpec spec_;
  torch::Device device_;
  SgdTrainer trainer_;
  std::int64_t step_ = 0;
  StepTrace trace_;
};

#if OPTBENCH_WITH_CUDA
// One training step captured into a CUDA graph after kWarmupSteps eager steps
// (which train: they are steps 0..warmup-1 of the run). Replays enqueue on the
// current stream.
class CapturedStep {
 public:
  CapturedStep(const SgdSpec& spec, const torch::Device& device, bool track_updates)
      : side_(c10::cuda::getStreamFromPool()), trainer_(spec, device, track_updates) {
    TORCH_CHECK(device.is_cuda(), "CUDA graphs need a CUDA device");
    static_x_ = spec.batch(0).first.clone();
    static_y_ = spec.batch(0).second.clone();

    // Warm-up on the side stream that will capture: lazy initialisation
    // (cuBLAS handles and workspaces for that stream, the momentum buffers)
    // must happen before capture, where it would be illegal.
    const auto t0 = Clock::now();
    c10::cuda::device_synchronize();  // the side stream must see the weights and batches
    {
      c10::cuda::CUDAStreamGuard guard(side_);
      for (int i = 0; i < kWarmupSteps; ++i) {
        copy_in(spec.batch(i));
        warmup_losses_.push_back(trainer_.step(static_x_, static_y_));
      }
    }
    c10::cuda::device_synchronize();  // the current stream must see the warm-up's updates
    warmup_s_ = seconds_since(t0);

    // Gradients None: backward allocates them from the graph's private pool,
    // where every replay writes them again (the recipe's zero_grad(set_to_none)).
    trainer_.zero_grad();
    graph_ = std::make_unique<at::cuda::CUDAGraph>();
    const auto t1 = Clock::now();
    {
      c10::cuda::CUDAStreamGuard guard(side_);
      compat::capture_begin(*graph_);
      try {
        static_loss_ = trainer_.step(static_x_, static_y_);
      } catch (...) {
        compat::abandon_capture(*graph_);
        throw;
      }
      graph_->capture_end();  // also instantiates
    }
    c10::cuda::device_synchronize();
    capture_s_ = seconds_since(t1);
  }

  ~CapturedStep() {
    // Nothing may still be replaying when the graph and its pool go.
    try {
      c10::cuda::device_synchronize();
    } catch (...) {
    }
  }
  CapturedStep(const CapturedStep&) = delete;
  CapturedStep& operator=(const CapturedStep&) = delete;

  // The batch goes into the static inputs on the current stream, then the graph
  // replays on that stream after it.
  void replay(const Batch& b) {
    copy_in(b);
    graph_->replay();
  }

  const torch::Tensor& static_loss() const { return static_loss_; }
  const std::vector<torch::Tensor>& warmup_losses() const { return warmup_losses_; }
  SgdTrainer& trainer() { return trainer_; }
  double warmup_s() const { return warmup_s_; }
  double capture_s() const { return capture_s_; }

 private:
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  void copy_in(const Batch& b) {
    static_x_.copy_(b.first);
    static_y_.copy_(b.second);
  }

  // Declared first, destroyed last: after the tensors that live in its pool.
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
  c10::cuda::CUDAStream side_;
  SgdTrainer trainer_;
  torch::Tensor static_x_, static_y_, static_loss_;
  std::vector<torch::Tensor> warmup_losses_;
  double warmup_s_ = 0, capture_s_ = 0;
};

class GraphReplayStep final : public Workload, public TracedStep {
 public:
  GraphReplayStep(SgdSpec spec, const torch::Device& device)
      : spec_(std::move(spec)), device_(device), captured_(spec_, device_, /*track_updates=*/false) {}

  void step() override { captured_.replay(spec_.batch(step_++)); }

  StepTrace trace() override {
    if (trace_.losses.defined()) return trace_;
    CapturedStep fresh(spec_, device_, /*track_updates=*/true);
    std::vector<torch::Tensor> losses = fresh.warmup_losses();
    for (int i = kWarmupSteps; i < kWarmupSteps + kTraceReplays; ++i) {
      fresh.replay(spec_.batch(i));
      losses.push_back(fresh.static_loss().clone());  // the next replay overwrites it
    }
    trace_ = {torch::stack(losses).to(torch::kCPU, torch::kDouble), fresh.trainer().update_norms()};
    return trace_;
  }
  at::Tensor output() override { return trace().flat(); }

  nlohmann::json metrics() override {
    return {{"warmup_steps", kWarmupSteps}, {"warmup_s", captured_.warmup_s()}, {"capture_s", captured_.capture_s()}};
  }

 private:
  SgdSpec spec_;
  torch::Device device_;
  CapturedStep captured_;
  std::int64_t step_ = kWarmupSteps;  // the warm-up trained steps 0..kWarmupSteps-1
  StepTrace trace_;
};
#endif

std::unique_ptr<Workload> make_graph_replay(const SgdSpec& spec, const torch::Device& device) {
#if OPTBENCH_WITH_CUDA
  return std::make_unique<GraphReplayStep>(spec, device);
#else
  (void)spec, (void)device;
  throw std::runtime_error("this build has no CUDA: CUDA graphs need a CUDA LibTorch");
#endif
}

// Launch overhead the graph removes: the eager step's median minus the replay's,
// their ratio, and the replays after which capture has paid for itself.
nlohmann::json launch_overhead_saved(const CaseResult& r) {
  const VariantResult *eager = r.variant("eager"), *graph = r.variant("graph_replay");
  if (!eager || !graph || !eager->stats || !graph->stats) return nlohmann::json::object();
  const double e = eager->stats->median, g = graph->stats->median;
  nlohmann::json out = {{"eager_step_s", e},
                        {"graph_step_s", g},
                        {"saved_per_step_s", e - g},
                        {"eager_over_graph", e / g},
                        {"saved_fraction_of_eager_step", (e - g) / e},
                        {"break_even_steps", nullptr}};
  const nlohmann::json& m = graph->metrics;
  if (m.is_object() && m.contains("capture_s") && m["capture_s"].is_number() && e > g) {
    out["capture_s"] = m["capture_s"];
    out["break_even_steps"] = m["capture_s"].get<double>() / (e - g);
  }
  return out;
}

Case graph_case(std::string name, nlohmann::json params, const SgdSpec& spec, WorkUnits units,
                const torch::Device& device) {
  Case c;
  c.name = std::move(name);
  c.params = std::move(params);
  c.params["optimizer"] = "SGD";
  c.params["lr"] = spec.lr;
  c.params["momentum"] = spec.momentum;
  c.params["precision"] = "fp32, TF32 off";
  c.units = units;
  c.variants = {{"eager", "forward, loss, backward and SGD step launched op by op",
                 [spec, device] { return std::make_unique<EagerStep>(spec, device); }},
                {"graph_replay", "the same step captured once into a CUDA graph; batch copied in, graph replayed",
                 [spec, device] { return make_graph_replay(spec, device); }}};
  c.verify = verify_step_traces(kTolerance);
  c.derive = launch_overhead_saved;
  c.notes = {{"warmup_steps_before_capture", kWarmupSteps},
             {"trace", std::to_string(kWarmupSteps) + " warm-up + " + std::to_string(kTraceReplays) +
                           " replayed steps vs as many eager steps, from the same fresh weights"}};
  return c;
}

class CudaGraphs final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "cuda_graphs",
        "Whole training step captured in a CUDA graph vs launched eagerly",
        "at::cuda::CUDAGraph: forward, loss, backward and optimizer step captured once, replayed every step",
        {"cuda_graphs"},
        "A training step (forward, cross-entropy, backward, SGD with momentum; fp32, TF32 off) launched op by "
        "op (baseline) vs captured once into a CUDA graph after 3 warm-up steps on a side stream and replayed "
        "on the current stream with the batch copied into static inputs. Two sizes: a small MLP on a small "
        "batch (launch-bound) and a GPT block stack at a realistic size (not). Derived: launch overhead saved "
        "per step and the steps after which capture pays off. Verified: per-step losses and the distance each "
        "parameter moved, eager vs warm-up + replays, from the same fresh weights.",
        {DeviceKind::cuda}};
    i.mechanism_counters = {"kernel_launches_per_step", "op_calls_per_step"};
    return i;
  }

  std::string unsupported_reason(const RunContext& ctx) const override {
    if (ctx.device != DeviceKind::cuda) return "CUDA graphs need a GPU";
    return Experiment::unsupported_reason(ctx);
  }

  // Sizes for a GPU; tiny ones elsewhere (only tests build those: on a CPU the
  // experiment is unsupported).
  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    const torch::Device device = torch_device(ctx.device);
    std::vector<Case> out;

    const MlpSpec m = gpu ? MlpSpec{32, 256, 8, 10} : MlpSpec{8, 16, 2, 4};
    SgdSpec mlp{mlp_factory(m), make_batches({m.batch, m.width}, {m.batch}, m.classes, device)};
    const double mlp_params = m.depth * (m.width * m.width) + m.width * m.classes;
    out.push_back(
        graph_case("mlp_b" + std::to_string(m.batch) + "_w" + std::to_string(m.width) + "_d" + std::to_string(m.depth),
                   {{"model", "mlp"},
                    {"batch", m.batch},
                    {"width", m.width},
                    {"depth", m.depth},
                    {"classes", m.classes},
                    {"expected", "launch-bound"}},
                   mlp, WorkUnits{0, 6.0 * mlp_params * m.batch, static_cast<double>(m.batch), "samples"}, device));

    const GptConfig g = gpu ? GptConfig{4, 1024, 16, 512, 8192} : GptConfig{1, 16, 2, 8, 32};
    const std::int64_t gb = gpu ? 8 : 2;
    SgdSpec gpt{gpt_factory(g), make_batches({gb, g.seq, g.hidden}, {gb, g.seq}, g.vocab, device)};
    out.push_back(graph_case(
        "gpt_blocks_l" + std::to_string(g.layers) + "_h" + std::to_string(g.hidden) + "_s" + std::to_string(g.seq),
        {{"model", "gpt blocks (no embedding)"},
         {"batch", gb},
         {"layers", g.layers},
         {"hidden", g.hidden},
         {"heads", g.heads},
         {"seq", g.seq},
         {"vocab", g.vocab},
         {"expected", "compute-bound"}},
        gpt, WorkUnits{0, gpt_train_flops_per_token(g) * gb * g.seq, static_cast<double>(gb * g.seq), "tokens"},
        device));
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(CudaGraphs);

}  // namespace
}  // namespace optbench::workloads
