#include "workloads/data/loader_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace optbench::workloads {

const char* to_string(LoopKind k) {
  switch (k) {
    case LoopKind::train:
      return "train";
    case LoopKind::data_only:
      return "data_only";
    case LoopKind::no_loader:
      return "no_loader";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;
using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MapDataset<SyntheticImages, StackMaybePin>,
                                                torch::data::samplers::RandomSampler>;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double median_of(std::vector<double> xs) {
  if (xs.empty()) return 0.0;
  std::sort(xs.begin(), xs.end());
  const auto n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

struct WindowRecord {
  double window_s = 0, first_batch_s = 0, wait_s = 0, copy_s = 0;
};

// at::set_num_threads for as long as any loop that asked for it is alive (the
// variants of a case live side by side), then the previous setting again.
class IntraOpThreads {
 public:
  explicit IntraOpThreads(int n) : n_(n) {
    if (n_ <= 0) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (users()++ == 0) {
      saved() = at::get_num_threads();
      at::set_num_threads(n_);
    }
  }
  ~IntraOpThreads() {
    if (n_ <= 0) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (--users() == 0) at::set_num_threads(saved());
  }
  IntraOpThreads(const IntraOpThreads&) = delete;
  IntraOpThreads& operator=(const IntraOpThreads&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& users() {
    static int u = 0;
    return u;
  }
  static int& saved() {
    static int s = 0;
    return s;
  }
  int n_;
};

// The batch TrainStep trains on next: set by the loop before each step.
struct Feed {
  torch::Tensor x, y;
};

}  // namespace

struct LoaderLoop::Impl {
  LoopSpec spec;
  IntraOpThreads threads;
  LoaderSettings settings;
  LoopKind kind;
  std::int64_t window_batches;
  torch::Device device;
  std::shared_ptr<PreprocessCounter> counter = std::make_shared<PreprocessCounter>();
  std::shared_ptr<Feed> feed = std::make_shared<Feed>();
  std::unique_ptr<TrainStep> trainer;
  std::unique_ptr<Loader> loader;
  std::vector<WindowRecord> records;
  std::int64_t incomplete = 0;

  Impl(const LoopSpec& s, LoaderSettings st, LoopKind k, std::int64_t w)
      : spec(s),
        threads(s.device == DeviceKind::cpu ? s.cpu_train_threads : 0),
        settings(st),
        kind(k),
        window_batches(w),
        device(torch_device(s.device)) {
    if (w < 1) throw std::invalid_argument("a window needs at least one batch");
    const std::int64_t n = w * spec.batch;  // exactly one window per epoch: no ragged last batch
    SyntheticImages ds(n, spec.image, counter);
    if (kind != LoopKind::data_only) {
      trainer = std::make_unique<TrainStep>(
          spec.net, [f = feed](std::int64_t) { return std::make_pair(f->x, f->y); }, spec.train, device);
    }
    if (kind == LoopKind::no_loader) {
      std::vector<torch::Tensor> xs;
      for (std::int64_t i = 0; i < spec.batch; ++i) xs.push_back(ds.get(static_cast<size_t>(i)).data);
      feed->x = torch::stack(xs).to(device);
      feed->y = torch::arange(spec.batch, torch::kLong).remainder(spec.image.classes).to(device);
      return;
    }
    loader = torch::data::make_data_loader(ds.map(StackMaybePin(settings.pin)), torch::data::samplers::RandomSampler(n),
                                           loader_options(spec.batch, settings.workers, settings.prefetch));
  }

  void sync_device() {
    // The window ends when the device has finished its last step, as the next
    // epoch (or the harness's own synchronisation) would see it.
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
  }

  void resident_window() {
    WindowRecord r;
    const auto t0 = Clock::now();
    for (std::int64_t i = 0; i < window_batches; ++i) trainer->step();
    sync_device();
    r.window_s = seconds(t0, Clock::now());
    records.push_back(r);
  }

  void loader_window() {
    WindowRecord r;
    const std::int64_t n = window_batches * spec.batch;
    std::int64_t delivered = 0, index_sum = 0;
    const auto t0 = Clock::now();
    auto requested = t0;
    bool first = true;
    // Data time as PyTorch's ImageNet example counts it: the time spent in the
    // loader's next(); the first comparison with end() fetches the first batch.
    for (auto it = loader->begin(); it != loader->end(); ++it) {
      auto& b = *it;
      const auto got = Clock::now();
      r.wait_s += seconds(requested, got);
      if (first) r.first_batch_s = seconds(t0, got);
      first = false;
      delivered += b.target.size(0);
      index_sum += b.target.sum().item<std::int64_t>();
      // non_blocking only from page-locked memory, as DataLoader(pin_memory=True)
      // + .to(device, non_blocking=True) does; a pageable copy blocks the host.
      auto x = b.data.to(device, /*non_blocking=*/settings.pin);
      auto idx = b.target.to(device, /*non_blocking=*/settings.pin);
      r.copy_s += seconds(got, Clock::now());
      // Both loops hold the batch until the next one arrives (the training step
      // needs it until then), so they allocate and free memory alike.
      feed->x = std::move(x);
      feed->y = idx.remainder(spec.image.classes);
      if (kind == LoopKind::train) trainer->step();
      requested = Clock::now();
    }
    sync_device();
    r.window_s = seconds(t0, Clock::now());
    // Every sample of the epoch exactly once: the count and the sum of indices
    // (a dropped batch, LibTorch's max_jobs trap, fails both).
    if (delivered != n || index_sum != n * (n - 1) / 2) ++incomplete;
    records.push_back(r);
  }
};

LoaderLoop::LoaderLoop(const LoopSpec& spec, LoaderSettings settings, LoopKind kind, std::int64_t window_batches)
    : impl_(std::make_unique<Impl>(spec, settings, kind, window_batches)) {}

LoaderLoop::~LoaderLoop() = default;

void LoaderLoop::step() {
  if (impl_->kind == LoopKind::no_loader)
    impl_->resident_window();
  else
    impl_->loader_window();
}

std::int64_t LoaderLoop::windows() const { return static_cast<std::int64_t>(impl_->records.size()); }
std::int64_t LoaderLoop::incomplete_windows() const { return impl_->incomplete; }
std::int64_t LoaderLoop::samples_prepared() const { return impl_->counter->samples.load(); }

bool LoaderLoop::trains() const { return impl_->trainer != nullptr; }

double LoaderLoop::last_loss() const {
  if (!impl_->trainer || !impl_->trainer->last_loss().defined()) return std::nan("");
  return impl_->trainer->last_loss().item<double>();
}

nlohmann::json LoaderLoop::metrics() {
  const auto& recs = impl_->records;
  // The first window is the cold one (allocator growth, first pinned blocks).
  const std::size_t from = recs.size() > 1 ? 1 : 0;
  std::vector<double> first, first_share, wait, copy;
  for (std::size_t i = from; i < recs.size(); ++i) {
    const auto& r = recs[i];
    if (!(r.window_s > 0)) continue;
    first.push_back(r.first_batch_s);
    first_share.push_back(r.first_batch_s / r.window_s);
    wait.push_back(r.wait_s / r.window_s);
    copy.push_back(r.copy_s / r.window_s);
  }
  nlohmann::json m = {{"loop", to_string(impl_->kind)},
                      {"window_batches", impl_->window_batches},
                      {"batch", impl_->spec.batch},
                      {"windows", recs.size()},
                      {"incomplete_windows", impl_->incomplete}};
  if (impl_->kind == LoopKind::no_loader) return m;
  m["time_to_first_batch_s"] = median_of(first);
  m["first_batch_share"] = median_of(first_share);
  m["data_wait_fraction"] = median_of(wait);
  m["copy_fraction"] = median_of(copy);
  m["preprocess_s_per_sample"] = impl_->counter->seconds_per_sample();
  return m;
}

}  // namespace optbench::workloads
