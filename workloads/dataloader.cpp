// Checklist #2 num_workers ("High, ~20-50% if CPU bottlenecked"), #8
// prefetch_factor ("~10-20%") and #1 pin_memory in the DataLoader: how much
// faster a training loop fed by LibTorch's DataLoader runs with N worker
// threads, P batches prefetched per worker, or batches pinned in the worker and
// copied non_blocking. Each sample is a whole epoch window from a fresh
// iterator (workloads/data/loader_loop.h says why), and each setting is shown
// beside its data-only rate and the no-loader bound, so the reader sees whether
// the loop is bound by the loader or by the training step.
#include <torch/torch.h>

#include <thread>

#include "harness/registry.h"
#include "workloads/data/loader_cases.h"
#include "workloads/models/resnet.h"
#include "workloads/models/small_cnn.h"

namespace optbench::workloads {
namespace {

// The loaders on a machine of `cores` cores.
LoaderSetup setup_for(DeviceKind d, RunProfile profile, std::int64_t cores) {
  LoaderSetup s;
  s.loop.device = d;
  if (d == DeviceKind::cuda) {
    // ResNet-50, AMP fp16 + GradScaler, channels_last: the usual ImageNet
    // recipe, at 112 px from 128 px images, batch 32, and windows of 2 x the
    // deepest loader's batches in flight, so that every case can get the rounds
    // floor in about two minutes on an H100 (224 px, batch 128 and 4 x windows
    // took far longer there: docs/results-history.md). A window holds 2,048
    // images (16 cores: 2 x 16 x 2 batches of 32). The step is still long
    // enough that a few worker threads keep up and the curve saturates within
    // the machine's cores.
    s.loop.model = "resnet50 (112 px)";
    s.loop.image = {128, 112, 1000};
    s.loop.batch = 32;
    s.window_factor = 2;
    s.loop.net = [] {
      torch::manual_seed(0);
      return make_net(resnet50(1000));
    };
    s.loop.train.precision = Precision::amp_fp16;
    s.loop.train.channels_last = true;
    s.pin_workers = std::max<std::int64_t>(1, cores / 2);
  } else {
    s.loop.model = "small_cnn (conv 3-8 k4 s4, conv 8-16 k3 s2, pool, linear)";
    s.loop.image = {64, 56, 10};
    s.loop.batch = 16;
    s.loop.cpu_train_threads = 1;
    s.loop.net = [] {
      torch::manual_seed(0);
      return make_net(small_cnn(10));
    };
  }
  s.prefetch_workers = std::max<std::int64_t>(1, cores / 4);
  if (profile == RunProfile::quick) {  // info().quick_leaves_out says what and why
    s.workers = {0, s.prefetch_workers};
    if (cores > s.prefetch_workers) s.workers.push_back(cores);
    s.prefetch = {1, 8};
    s.pin_workers = 0;
    return s;
  }
  for (std::int64_t w = 0; w <= cores; w = w ? 2 * w : 1) s.workers.push_back(w);
  s.prefetch = {1, 2, 4, 8};
  return s;
}

class DataLoaderExperiment final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"dataloader",
            "DataLoader worker threads, prefetch depth and pinned batches, end to end",
            "num_workers > 0, prefetch depth (max_jobs), batches pinned in the worker + non_blocking copies",
            {"num_workers", "prefetch_factor", "pin_memory"},
            "A training loop fed by LibTorch's DataLoader over images that cost real CPU work per sample "
            "(JPEG-like decode, random crop, flip, normalise): ResNet-50 AMP fp16 channels_last at 112 px on a GPU, a "
            "small conv net on a CPU. Each sample is one epoch window from a fresh iterator, the same number of "
            "batches for every variant of a case; the pipeline fill (time to the first batch) is reported apart. "
            "Variants: 0 workers (baseline) vs 1, 2, 4, ... up to the core count; prefetch depth 1, 2, 4, 8; pinned vs "
            "pageable batches (GPU). Each beside its data-only loop (loading and copies, no training), with the "
            "no-loader bound (data already on the device); samples/s and the share of time waiting for data.",
            {DeviceKind::cpu, DeviceKind::cuda},
            "workers other than 0, cores/4 and all cores; prefetch depths 2 and 4; the pinned case (a round of the "
            "full workers case would take most of the quick run's 3 minutes on an H100: every setting loads a whole "
            "window, twice)"};
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    LoaderSetup s = setup_for(ctx.device, ctx.profile, std::max(1u, std::thread::hardware_concurrency()));
    s.preprocess_s_one_thread = preprocess_seconds_one_thread(s.loop.image);  // one note for every case
    return cases_of(s);
  }

  // setup_for's quick loaders have no pinned case.
  bool keeps_case(const std::string& name, const RunContext& ctx) const override {
    return ctx.profile != RunProfile::quick || name.rfind("pin_", 0) != 0;
  }

  // A case recorded with other windows, images or variants (the GPU's before
  // they were sized for the rounds floor): the images its variants' windows
  // hold and their pixels, now over then, on the recorded machine's cores. Training and decoding both grow with
  // the pixels; the pipeline fill is a small share of a window.
  double recorded_work_ratio(const nlohmann::json& recorded, const RunContext& ctx) const override {
    const nlohmann::json p = recorded.value("params", nlohmann::json::object());
    const std::int64_t cores = p.value("cores", std::int64_t{0}), batch = p.value("batch", std::int64_t{0}),
                       crop = p.value("crop", std::int64_t{0});
    if (cores <= 0 || batch <= 0 || crop <= 0) return 1.0;
    LoaderSetup s = setup_for(ctx.device, ctx.profile, cores);
    s.preprocess_s_one_thread = 1;  // a note the ratio does not read
    double then = 0;                // images in the recorded windows of every variant
    for (const auto& v : recorded.value("variants", nlohmann::json::array())) {
      const auto w = v.value("metrics", nlohmann::json::object()).value("window_batches", std::int64_t{0});
      then += static_cast<double>((w > 0 ? w : p.value("window_batches", std::int64_t{0})) * batch);
    }
    if (then <= 0) return 1.0;
    for (const Case& c : cases_of(s))
      if (c.name == recorded.value("name", "")) {
        const double pixels =
            static_cast<double>(s.loop.image.crop * s.loop.image.crop) / static_cast<double>(crop * crop);
        return c.units.items * static_cast<double>(c.variants.size()) / then * pixels;
      }
    return 1.0;
  }

 private:
  static std::vector<Case> cases_of(const LoaderSetup& s) {
    std::vector<Case> out = {workers_case(s), prefetch_case(s)};
    if (s.pin_workers > 0) out.push_back(pin_case(s));
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(DataLoaderExperiment);

}  // namespace
}  // namespace optbench::workloads
