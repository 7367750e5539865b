// Checklist row 13, "Reduce CPU bottlenecks: avoid slow disk reads, keep data
// in RAM" (High in I/O-heavy workloads): one epoch of a training loop over a
// dataset of encoded images stored one file per sample, each read from storage
// with its pages evicted from the page cache first (baseline), against the same
// bytes already in RAM; decoded and trained on the same way, with 0 workers and
// with several (workloads/data/file_images.h says how the cache is evicted and
// why not O_DIRECT). Each variant records the read bandwidth it got, so a
// reader can tell an NVMe result from a network disk's, or a file system where
// eviction did not take (memory speed).
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "harness/registry.h"
#include "harness/scratch_dir.h"
#include "workloads/common.h"
#include "workloads/data/file_images.h"
#include "workloads/models/resnet.h"
#include "workloads/models/small_cnn.h"
#include "workloads/training/train_step.h"

namespace optbench::workloads {
namespace {

using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MapDataset<FileImages, StackMaybePin>,
                                                torch::data::samplers::RandomSampler>;

struct Spec {
  std::int64_t workers = 0, batch = 16, classes = 10;
  NetFactory net;
  TrainOptions train;
  DeviceKind device = DeviceKind::cpu;
};

// One step = one epoch over every file, from a fresh iterator: loaded (read,
// checksummed, decoded), copied to the device and trained on batch by batch.
class StorageEpoch final : public Workload {
 public:
  StorageEpoch(std::shared_ptr<const ImageFiles> files, ByteSource source, Spec s)
      : files_(std::move(files)), source_(source), spec_(std::move(s)), device_(torch_device(spec_.device)) {
    const auto n = files_->size();
    loader_ = torch::data::make_data_loader(FileImages(files_, source_, stats_).map(StackMaybePin(false)),
                                            torch::data::samplers::RandomSampler(n),
                                            loader_options(spec_.batch, spec_.workers, 2));
    trainer_ = std::make_unique<TrainStep>(
        spec_.net, [f = feed_](std::int64_t) { return std::make_pair(f->first, f->second); }, spec_.train, device_);
  }

  void step() override {
    std::int64_t seen = 0;
    for (auto& b : *loader_) {
      seen += b.target.size(0);
      feed_->first = b.data.to(device_);
      feed_->second = b.target.to(device_).remainder(spec_.classes);
      trainer_->step();
    }
    if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
    ++epochs_;
    if (seen != files_->size()) ++incomplete_;
  }

  nlohmann::json metrics() override {
    const double s = static_cast<double>(stats_->nanoseconds.load()) * 1e-9;
    const double bytes = static_cast<double>(stats_->bytes.load());
    return {{"source", to_string(source_)},
            {"read_bytes_per_s_per_thread", s > 0 ? json(bytes / s) : json(nullptr)},
            {"bytes_per_file", files_->bytes_per_file()},
            {"files", files_->size()},
            {"epochs", epochs_},
            {"incomplete_epochs", incomplete_},
            {"checksum_mismatches", stats_->bad.load()}};
  }

  std::string problem() const {
    if (epochs_ == 0) return "no epoch was run";
    if (incomplete_ > 0) return std::to_string(incomplete_) + " epochs did not deliver every file";
    if (stats_->bad.load() > 0) return std::to_string(stats_->bad.load()) + " reads returned other bytes";
    return "";
  }

 private:
  using json = nlohmann::json;
  std::shared_ptr<const ImageFiles> files_;
  ByteSource source_;
  Spec spec_;
  torch::Device device_;
  std::shared_ptr<ReadStats> stats_ = std::make_shared<ReadStats>();
  std::shared_ptr<std::pair<torch::Tensor, torch::Tensor>> feed_ =
      std::make_shared<std::pair<torch::Tensor, torch::Tensor>>();
  std::unique_ptr<Loader> loader_;
  std::unique_ptr<TrainStep> trainer_;
  std::int64_t epochs_ = 0, incomplete_ = 0;
};

CheckResult verify_reads(std::vector<Workload*>& ws) {
  for (Workload* w : ws) {
    auto* e = dynamic_cast<StorageEpoch*>(w);
    if (!e) return {"not a storage epoch"};
    if (auto p = e->problem(); !p.empty()) return {p};
  }
  return {};
}

class StorageReads final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"storage_reads",
            "Data in RAM vs read from storage each epoch",
            "the dataset's bytes kept in RAM instead of read from storage (page cache evicted) every epoch",
            {"reduce_cpu_bottlenecks"},
            "One training epoch over encoded images stored one file per sample: each file read from storage with "
            "its pages evicted from the page cache first (baseline) vs the same bytes held in RAM; checksummed, "
            "decoded and trained on the same way, with 0 workers and with several. Each variant records the read "
            "bandwidth it got (a memory-speed figure for the storage variant means the eviction did not take)."};
  }

  // Before its cases, which write the files: on a file system in RAM the
  // "storage" variant would read memory, and a verified "no effect" would follow.
  std::string unsupported_reason(const RunContext& ctx) const override {
    if (auto r = Experiment::unsupported_reason(ctx); !r.empty()) return r;
    if (const std::string parent = scratch_parent(); on_ram_filesystem(parent))
      return "its files would go to " + parent +
             ", a file system in RAM (tmpfs), where a read from storage is a memory read: set TMPDIR to a folder "
             "on a disk";
    return "";
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    Spec s;
    s.device = ctx.device;
    // The GPU loop is the dataloader experiment's (ResNet-50, AMP fp16,
    // channels_last, 112 px); the CPU one its small conv net. Files of 110 kB
    // on a GPU (an average ImageNet JPEG), 32 kB on a CPU so CI stays short.
    const ImageSpec image = gpu ? ImageSpec{128, 112, 1000} : ImageSpec{64, 56, 10};
    const std::int64_t files = gpu ? 1024 : 256, bytes = gpu ? 110 * 1024 : 32 * 1024;
    s.batch = gpu ? 32 : 16;
    s.classes = image.classes;
    if (gpu) {
      s.net = [] {
        torch::manual_seed(0);
        return make_net(resnet50(1000));
      };
      s.train.precision = Precision::amp_fp16;
      s.train.channels_last = true;
    } else {
      s.net = [] {
        torch::manual_seed(0);
        return make_net(small_cnn(10));
      };
    }
    const std::string parent = scratch_parent();
    auto set = std::make_shared<const ImageFiles>(parent, files, bytes, image);
    const std::int64_t cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<Case> out;
    for (std::int64_t w : {std::int64_t{0}, std::min<std::int64_t>(cores, 8)}) {
      Spec sw = s;
      sw.workers = w;
      Case c;
      c.name = "workers_" + std::to_string(w);
      c.params = {{"workers", w},     {"files", files},      {"bytes_per_file", bytes},
                  {"batch", s.batch}, {"image", image.size}, {"folder", parent}};
      c.timing = TimingMode::sync;
      c.units = WorkUnits{static_cast<double>(files * bytes), 0, static_cast<double>(files), "samples"};
      auto variant = [&](std::string name, std::string desc, ByteSource src) {
        Variant v{std::move(name), std::move(desc),
                  [set, src, sw] { return std::make_unique<StorageEpoch>(set, src, sw); }};
        v.params = {{"source", to_string(src)}};
        return v;
      };
      c.variants = {variant("storage", "each file read from storage, its pages evicted from the cache first",
                            ByteSource::storage),
                    variant("in_ram", "the same bytes held in RAM", ByteSource::ram)};
      c.verify = verify_reads;
      c.notes = {{"eviction",
                  "posix_fadvise(POSIX_FADV_DONTNEED) on each file before its read, after the files were "
                  "written and synced; not O_DIRECT, which no DataLoader uses"},
                 {"read_bandwidth",
                  "metrics.read_bytes_per_s_per_thread: bytes over the time spent reading, per "
                  "reading thread"}};
      out.push_back(std::move(c));
    }
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(StorageReads);

}  // namespace
}  // namespace optbench::workloads
