// Checklist #1, pin_memory ("Moderate, ~10-20%") and seed 004's memory pinning:
// host<->device copies from pageable vs page-locked memory over a size sweep,
// and a training-like step whose batch copy is either a blocking pageable copy
// or a pinned non_blocking copy on a side stream overlapped with compute.
// GB/s are compared with the PCIe link's per-direction limit read from NVML.
#include <torch/torch.h>

#if OPTBENCH_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/common.h"

namespace optbench::workloads {
namespace {

// Per-direction PCIe payload rate: GT/s per lane x encoding efficiency / 8.
double pcie_bytes_per_s(unsigned gen, unsigned width) {
  static const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (gen < 1 || gen > 6 || width == 0) return 0;
  const double eff = gen <= 2 ? 0.8 : 128.0 / 130.0;  // 8b/10b, then 128b/130b
  return gts[gen] * 1e9 * eff / 8.0 * width;
}

nlohmann::json link_notes(DeviceKind d) {
  nlohmann::json notes = {{"peak_kind", "host_link"}};
  const auto info = gpu_nvml_info(d);
  if (!info.is_object() || !info.value("available", false)) return notes;
  const auto& link = info["pcie_link"];
  notes["pcie_link"] = link;
  if (link["max_generation"].is_number() && link["max_width"].is_number()) {
    // The negotiated maximum: the current link may have downshifted at idle.
    notes["link_bytes_per_s"] =
        pcie_bytes_per_s(link["max_generation"].get<unsigned>(), link["max_width"].get<unsigned>());
  }
  return notes;
}

enum class Direction { h2d, d2h };

constexpr const char* kTimingNote =
    "pageable copies block the host and are timed per copy with the host clock (sync); pinned non_blocking copies "
    "do not, and are timed with CUDA events over a batch of back-to-back copies";

class Copy final : public Workload {
 public:
  Copy(std::int64_t bytes, Direction dir, bool pinned, DeviceKind d) : dir_(dir), pinned_(pinned) {
    const auto n = bytes / 4;
    auto host_opts = at::TensorOptions().dtype(at::kFloat).pinned_memory(pinned);
    host_ = at::empty({n}, host_opts);
    host_.copy_(at::arange(n, at::kFloat));
    dev_ = at::empty({n}, at::TensorOptions().dtype(at::kFloat).device(torch_device(d)));
    if (dir == Direction::d2h) dev_.copy_(host_);
  }
  void step() override {
    // non_blocking only means something for pinned memory; for pageable memory
    // the copy is staged through a driver buffer and blocks the host either way.
    if (dir_ == Direction::h2d)
      dev_.copy_(host_, /*non_blocking=*/pinned_);
    else
      host_.copy_(dev_, /*non_blocking=*/pinned_);
  }
  at::Tensor output() override { return dir_ == Direction::h2d ? dev_.cpu() : host_.clone(); }

 private:
  Direction dir_;
  bool pinned_;
  at::Tensor host_, dev_;
};

#if OPTBENCH_WITH_CUDA
enum class Pipeline { pageable_serial, pinned_serial, pinned_overlap, copy_only, compute_only };

// A training-like step: batch i is copied to the device and multiplied by a
// weight. In the overlapped pipeline the copy of batch i+1 runs on a side stream
// while batch i computes (double buffering); the copy stream is joined back to
// the current stream before step() returns, so the events bracket all the work.
class CopyComputeStep final : public Workload {
 public:
  CopyComputeStep(std::int64_t rows, std::int64_t cols, Pipeline p)
      : p_(p), copy_stream_(c10::cuda::getStreamFromPool()) {
    const bool pinned = p != Pipeline::pageable_serial;
    for (int i = 0; i < 2; ++i) {
      host_[i] = at::empty({rows, cols}, at::TensorOptions().dtype(at::kFloat).pinned_memory(pinned));
      host_[i].copy_(seeded_randn({rows, cols}, at::TensorOptions(), 10));  // same data in both buffers
      dev_[i] = at::empty({rows, cols}, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA));
      dev_[i].copy_(host_[i]);
    }
    w_ = seeded_randn({cols, cols}, at::TensorOptions().device(at::kCUDA), 11);
    out_ = at::empty({rows, cols}, w_.options());
    copied_[0].record(c10::cuda::getCurrentCUDAStream());
  }

  void step() override {
    auto cur = c10::cuda::getCurrentCUDAStream();
    const int a = i_ % 2, b = (i_ + 1) % 2;
    ++i_;
    switch (p_) {
      case Pipeline::pageable_serial:
      case Pipeline::pinned_serial:
        dev_[a].copy_(host_[a], /*non_blocking=*/p_ == Pipeline::pinned_serial);
        at::mm_out(out_, dev_[a], w_);
        return;
      case Pipeline::copy_only:
        dev_[a].copy_(host_[a], /*non_blocking=*/true);
        return;
      case Pipeline::compute_only:
        at::mm_out(out_, dev_[a], w_);
        return;
      case Pipeline::pinned_overlap: {
        copied_[a].block(cur);  // batch a has arrived
        at::mm_out(out_, dev_[a], w_);
        consumed_[a].record(cur);
        consumed_[b].block(copy_stream_);  // buffer b is free once its last compute is done
        {
          c10::cuda::CUDAStreamGuard g(copy_stream_);
          dev_[b].copy_(host_[b], /*non_blocking=*/true);
        }
        copied_[b].record(copy_stream_);
        copied_[b].block(cur);  // join: the step ends when both are done
        return;
      }
    }
  }
  at::Tensor output() override { return p_ == Pipeline::copy_only ? at::Tensor() : out_.cpu(); }

 private:
  Pipeline p_;
  c10::cuda::CUDAStream copy_stream_;
  at::Tensor host_[2], dev_[2], w_, out_;
  at::cuda::CUDAEvent copied_[2], consumed_[2];
  std::int64_t i_ = 0;
};
#endif

class PinnedMemory final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"pinned_memory",
            "Pinned (page-locked) vs pageable host memory",
            "pin_memory: copies from page-locked host buffers, non_blocking and overlapped with compute",
            {"pin_memory"},
            "Host-to-device and device-to-host copies from pageable and pinned buffers, 1 MiB to 256 MiB (GB/s "
            "against the PCIe link's limit), and a copy+compute training-like step: blocking pageable copy vs "
            "pinned non_blocking copy on a side stream overlapped with compute, with the share of the copy hidden.",
            {DeviceKind::cuda}};
  }

  std::string unsupported_reason(const RunContext& ctx) const override {
    if (ctx.device != DeviceKind::cuda) return "host-to-device copies need a GPU";
    return Experiment::unsupported_reason(ctx);
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    std::vector<std::int64_t> sizes = {1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20};
    if (ctx.profile == RunProfile::quick) sizes = {1 << 20, 16 << 20, 256 << 20};
    const auto notes = link_notes(d);
    std::vector<Case> out;
    for (Direction dir : {Direction::h2d, Direction::d2h}) {
      const std::string dname = dir == Direction::h2d ? "h2d" : "d2h";
      for (std::int64_t bytes : sizes) {
        Case c;
        c.name = dname + "_" + size_label(static_cast<double>(bytes));
        c.params = {{"direction", dname}, {"bytes", bytes}};
        // Pageable copies block the host: time with the host clock, per copy.
        // Pinned non_blocking copies do not: synchronising after each would add
        // a host round trip per copy, so they are timed with events over a batch.
        c.timing = TimingMode::sync;
        c.units.bytes = static_cast<double>(bytes);
        c.variants = {{"pageable", "torch::empty (pageable) host buffer",
                       [=] { return std::make_unique<Copy>(bytes, dir, false, d); }},
                      {"pinned", "pin_memory host buffer, non_blocking",
                       [=] { return std::make_unique<Copy>(bytes, dir, true, d); }}};
        c.variants[1].timing = TimingMode::batched;
        c.tolerance = Tolerance{0, 0};
        c.notes = notes;
        c.notes["timing"] = kTimingNote;
        out.push_back(std::move(c));
      }
    }
#if OPTBENCH_WITH_CUDA
    out.push_back(training_step_case(notes));
#endif
    return out;
  }

#if OPTBENCH_WITH_CUDA
  static Case training_step_case(const nlohmann::json& notes) {
    // 64 MiB per batch; a 4096^2 fp32 matmul takes about as long as its copy on
    // an H100 over PCIe Gen5, which is where overlap matters most.
    const std::int64_t rows = 4096, cols = 4096;
    auto v = [=](std::string name, std::string desc, Pipeline p, VariantRole role = VariantRole::optimized) {
      Variant var{std::move(name), std::move(desc), [=] { return std::make_unique<CopyComputeStep>(rows, cols, p); }};
      var.role = role;
      // Only the pageable pipeline blocks the host; the others run back to back
      // as training steps do, timed with events over a batch.
      if (p != Pipeline::pageable_serial) var.timing = TimingMode::batched;
      return var;
    };
    Case c;
    c.name = "copy_compute_step_64MiB";
    c.params = {{"bytes", rows * cols * 4}, {"matmul", "4096x4096x4096 fp32"}};
    c.timing = TimingMode::sync;
    c.units = {static_cast<double>(rows * cols * 4), 2.0 * rows * cols * cols, 1, "batches"};
    c.variants = {
        v("pageable_serial", "blocking pageable copy, then compute", Pipeline::pageable_serial),
        v("pinned_serial", "pinned non_blocking copy on the same stream", Pipeline::pinned_serial),
        v("pinned_overlap", "pinned copy of the next batch on a side stream, overlapped", Pipeline::pinned_overlap),
        v("copy_only", "the pinned copy alone", Pipeline::copy_only, VariantRole::reference),
        v("compute_only", "the compute alone (data already on the device)", Pipeline::compute_only,
          VariantRole::reference)};
    // Every pipeline multiplies the same data by the same weight.
    c.verify = [](std::vector<Workload*>& w) -> std::string {
      const auto a = w[0]->output(), b = w[1]->output();
      if (!a.defined() || !b.defined()) return "";
      return at::equal(a, b) ? "" : "pipeline output differs from the pageable baseline";
    };
    c.notes = notes;
    c.notes["timing"] = kTimingNote;
    c.derive = [](const CaseResult& r) -> nlohmann::json {
      auto median_of = [&](const std::string& name) -> double {
        const VariantResult* v = r.variant(name);
        return v && v->stats ? v->stats->median : NAN;
      };
      const double copy = median_of("copy_only"), compute = median_of("compute_only"),
                   overlap = median_of("pinned_overlap");
      if (!(copy > 0 && compute > 0 && overlap > 0)) return nlohmann::json::object();
      // Hidden share: the part of the copy that did not add to the step time.
      const double hidden = std::clamp((copy + compute - overlap) / copy, 0.0, 1.0);
      return {
          {"copy_s", copy}, {"compute_s", compute}, {"overlapped_step_s", overlap}, {"copy_hidden_fraction", hidden}};
    };
    return c;
  }
#endif
};

OPTBENCH_REGISTER_EXPERIMENT(PinnedMemory);

}  // namespace
}  // namespace optbench::workloads
