// Checklist #3, larger batch_size ("High, depends on GPU memory; try 256, 512,
// 1024 if possible"): training throughput (samples/s) and peak memory of
// ResNet-50 over a batch-size sweep that doubles until the device runs out of
// memory. Out-of-memory variants are recorded as "oom" by the runner and the
// sweep goes on, so the result says which batch was the largest that fit, which
// was fastest per sample, and where returns diminish (Case::derive).
#include <torch/torch.h>

#include <algorithm>
#include <limits>

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/resnet.h"
#include "workloads/training/train_step.h"
#include "workloads/training/verify_losses.h"

namespace optbench::workloads {
namespace {

using json = nlohmann::json;

// "Diminishing returns": the smallest batch within this share of the best samples/s.
constexpr double kNearBest = 0.9;

struct SweepSpec {
  std::string model;
  NetFactory factory;
  std::int64_t classes, side;
  std::vector<std::int64_t> batches;  // ascending; [0] is the baseline
  TrainOptions opts;
  double forward_flops_per_image;
};

// Largest batch that fit, the fastest per sample, where returns diminish, and
// a compact table; from the result alone (each variant's units, throughput,
// memory, status).
json sweep_summary(const CaseResult& r) {
  struct Row {
    double batch;
    std::string status;
    std::optional<double> sps, peak;
  };
  std::vector<Row> rows;
  for (const auto& v : r.variants) {
    Row row{v.units ? v.units->items : r.units.items, to_string(v.status), v.throughput.items_per_s, std::nullopt};
    if (v.memory) row.peak = static_cast<double>(v.memory->allocated_bytes);
    if (v.status != VariantStatus::ok) row.sps.reset();  // an OOM mid-sampling leaves samples that say nothing
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.batch < b.batch; });

  json out = json::object();
  std::optional<double> largest, smallest_oom, best_batch, best_sps;
  json other_failures = json::array();  // e.g. a kernel that refuses a huge tensor: not "did not fit"
  for (const auto& row : rows) {
    if (row.status == "oom" && !smallest_oom) smallest_oom = row.batch;
    if (row.status != "ok" && row.status != "oom")
      other_failures.push_back({{"batch", row.batch}, {"status", row.status}});
    if (!row.sps) continue;
    largest = row.batch;
    if (!best_sps || *row.sps > *best_sps) {
      best_sps = row.sps;
      best_batch = row.batch;
    }
  }
  std::optional<double> knee;
  for (const auto& row : rows)
    if (row.sps && best_sps && *row.sps >= kNearBest * *best_sps) {
      knee = row.batch;
      break;
    }
  auto opt = [](const std::optional<double>& x) { return x ? json(*x) : json(nullptr); };
  out["largest_fitting_batch"] = opt(largest);
  out["smallest_oom_batch"] = opt(smallest_oom);
  // Without an OOM the sweep never reached the device's limit.
  out["largest_fitting_is_lower_bound"] = !smallest_oom.has_value();
  out["other_failures"] = other_failures;
  out["best_batch"] = opt(best_batch);
  out["best_samples_per_s"] = opt(best_sps);
  out["diminishing_returns_batch"] = opt(knee);
  out["diminishing_returns_rule"] = "smallest batch within 10% of the best samples/s";
  json table = json::array();
  for (const auto& row : rows)
    table.push_back({row.batch, row.status, opt(row.sps), opt(row.peak),
                     row.sps && best_sps ? json(*row.sps / *best_sps) : json(nullptr)});
  out["table"] = {{"columns", {"batch", "status", "samples_per_s", "peak_allocated_bytes", "of_best"}},
                  {"rows", table}};
  return out;
}

WorkUnits units_for(const SweepSpec& s, std::int64_t batch) {
  const double b = static_cast<double>(batch);
  return WorkUnits{0, 3.0 * s.forward_flops_per_image * b, b, "images"};
}

Case sweep_case(const SweepSpec& s, DeviceKind d) {
  const torch::Device device = torch_device(d);
  const std::int64_t b0 = s.batches.at(0);
  // Every batch tiles the same b0 images: BatchNorm's batch statistics, the mean
  // loss and hence every gradient are those of the b0 batch, so each batch's
  // loss trace is checkable against the smallest batch's float64 trace (a
  // float64 trace of the large batches themselves would not fit). Dense
  // convolutions run at a speed that does not depend on the values.
  const auto x0 = seeded_randn({b0, 3, s.side, s.side}, torch::TensorOptions().device(device), 41);
  auto gen = at::detail::createCPUGenerator(43);
  const auto y0 = torch::randint(0, s.classes, {b0}, gen, torch::kLong).to(device);

  Case c;
  c.name = s.model + "_" + std::to_string(s.side) + "px_" + to_string(s.opts.precision) +
           (s.opts.channels_last ? "_channels_last" : "");
  c.params = {{"model", s.model},
              {"image", s.side},
              {"precision", to_string(s.opts.precision)},
              {"channels_last", s.opts.channels_last},
              {"batches", s.batches},
              {"optimizer", "SGD momentum 0.9"}};
  c.units = units_for(s, b0);
  for (const std::int64_t b : s.batches) {
    TORCH_CHECK(b % b0 == 0, "every batch must be a multiple of the smallest");
    const TrainOptions o = s.opts;
    const NetFactory factory = s.factory;
    // The batch is made in the factory, so a batch too big for the device fails
    // (and is recorded as oom) when its variant is built, not before the sweep.
    auto make = [=]() -> std::unique_ptr<Workload> {
      auto x = x0.repeat({b / b0, 1, 1, 1});
      if (o.channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);  // not converted again every step
      auto y = y0.repeat({b / b0});
      return std::make_unique<TrainStep>(factory, [x, y](std::int64_t) { return std::make_pair(x, y); }, o, device);
    };
    c.variants.push_back({"batch_" + std::to_string(b),
                          "batch size " + std::to_string(b),
                          make,
                          VariantRole::optimized,
                          units_for(s, b),
                          {{"batch", b}}});
  }
  c.verify = verify_loss_traces;
  c.oom_expected = true;  // the sweep's largest batches are meant to find where memory ends
  c.derive = sweep_summary;
  c.notes = {{"data_note", "batch b = the same " + std::to_string(b0) + " images repeated b/" + std::to_string(b0) +
                               " times, resident on the device; the loss trace of every batch must match the smallest "
                               "batch's float64 trace"},
             {"memory_note",
              "peak = what a variant adds while it is built and warmed up (weights, momentum, its batch, "
              "activations). Variants are built smallest first and the smaller ones' weights and batches "
              "stay resident, so the largest batch that fits is found with slightly less than the whole "
              "device"}};
  return c;
}

class BatchSize final : public Experiment {
 public:
  ExperimentInfo info() const override {
    ExperimentInfo i{
        "batch_size",
        "Batch-size sweep: samples/s and peak memory up to the largest batch that fits",
        "a larger training batch size",
        {"batch_size"},
        "ResNet-50 training steps (224x224, AMP bf16, channels_last, SGD) at batch 16, 32, ... doubling past "
        "what any current GPU holds; batches that run out of memory are recorded as oom and the sweep goes on. "
        "Speedups compare samples/s with the smallest batch; derived: the largest batch that fit, the batch with "
        "the best samples/s and the smallest batch within 10% of it, with samples/s and peak memory per batch. "
        "On a CPU, a small ResNet on 32x32 images in fp32 at batch 8, 16, 32."};
    i.mechanism_counters = {"kernel_launches_per_step", "op_calls_per_step"};
    return i;
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    SweepSpec s;
    if (ctx.device == DeviceKind::cuda) {
      s.model = "resnet50";
      s.factory = [] {
        torch::manual_seed(0);
        return make_net(resnet50(1000));
      };
      s.classes = 1000;
      s.side = 224;
      // 4096 images need several times the memory of the largest GPUs (141 GiB).
      s.batches = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
      s.opts.precision = Precision::amp_bf16;
      s.opts.channels_last = true;
      s.forward_flops_per_image = kResNet50ForwardFlops224;
    } else {
      // One Bottleneck per stage: the same code paths, a CI-sized cost.
      s.model = "resnet_1111";
      s.factory = [] {
        torch::manual_seed(0);
        return make_net(ResNet(std::vector<std::int64_t>{1, 1, 1, 1}, 10));
      };
      s.classes = 10;
      s.side = 32;
      // From 8: BatchNorm's last stage sees 1x1 maps, and fewer than 8 values per
      // channel make its gradients ill-conditioned (fp32 vs float64: 4% at batch 2,
      // 1e-6 at batch 8), which would drown the loss-trace check.
      s.batches = {8, 16, 32};
      s.opts.precision = Precision::fp32;
      s.forward_flops_per_image = 0;  // not modelled for this net: throughput in images/s only
    }
    return {sweep_case(s, ctx.device)};
  }
};

OPTBENCH_REGISTER_EXPERIMENT(BatchSize);

}  // namespace
}  // namespace optbench::workloads
