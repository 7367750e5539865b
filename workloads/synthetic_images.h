#pragma once
// A dataset whose samples cost what a real image pipeline costs on the CPU:
// each get() "decodes" a JPEG-like image (workloads/data/preprocess.h), takes a
// random crop, flips it with p = 0.5 and normalises it into a float CHW tensor.
// The time of every get() is added to a counter shared by all copies of the
// dataset (LibTorch gives each worker thread its own copy), so the per-sample
// cost under the run's real contention is measured, and so tests can see how
// many samples were produced. Shared by the dataloader experiment and its tests.
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "workloads/data/preprocess.h"

namespace optbench::workloads {

struct ImageSpec {
  std::int64_t size = 64;  // decoded image side (a multiple of 16)
  std::int64_t crop = 56;  // side after the random crop
  std::int64_t classes = 10;
};

// Samples produced and the time spent producing them, over every thread.
struct PreprocessCounter {
  std::atomic<std::int64_t> samples{0};
  std::atomic<std::int64_t> nanoseconds{0};
  double seconds_per_sample() const {
    const auto n = samples.load();
    return n ? static_cast<double>(nanoseconds.load()) * 1e-9 / static_cast<double>(n) : 0.0;
  }
};

// One sample's preprocessing into `out` (float, 3 x crop x crop, contiguous).
inline void preprocess_sample(std::uint64_t index, const ImageSpec& spec, float* out) {
  thread_local std::vector<std::uint8_t> rgb;
  const int side = static_cast<int>(spec.size), crop = static_cast<int>(spec.crop);
  const std::uint64_t seed = 0x1000 + index;
  data::decode_like(seed, side, rgb);
  data::crop_flip_normalize(rgb.data(), side, crop, data::random_crop_flip(seed, side, crop), out);
}

class SyntheticImages : public torch::data::datasets::Dataset<SyntheticImages> {
 public:
  SyntheticImages(std::int64_t n, ImageSpec spec, std::shared_ptr<PreprocessCounter> counter = nullptr)
      : n_(n), spec_(spec), counter_(counter ? std::move(counter) : std::make_shared<PreprocessCounter>()) {}

  torch::data::Example<> get(size_t index) override {
    const auto t0 = std::chrono::steady_clock::now();
    auto x = torch::empty({3, spec_.crop, spec_.crop}, torch::kFloat);
    preprocess_sample(index, spec_, x.data_ptr<float>());
    // The target carries the index, so each sample can be checked to arrive once
    // per epoch; the class label is derived from it on the device.
    auto y = torch::tensor(static_cast<int64_t>(index), torch::kLong);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
    counter_->nanoseconds += ns.count();
    ++counter_->samples;
    return {x, y};
  }

  torch::optional<size_t> size() const override { return static_cast<size_t>(n_); }
  const std::shared_ptr<PreprocessCounter>& counter() const { return counter_; }

 private:
  std::int64_t n_;
  ImageSpec spec_;
  std::shared_ptr<PreprocessCounter> counter_;
};

// Collation (and optional page-locking) in the worker thread, as plain copies:
// each sample into one batch tensor, then, for pinned batches, the batch into
// page-locked memory, the extra copy PyTorch's pin_memory thread makes. Plain
// memcpy rather than torch::stack: a DataLoader worker runs with one thread
// (PyTorch sets it), while ATen's copies here would start an intra-op team per
// worker that spins on the cores the training step needs. LibTorch has no
// pin_memory option, so stacking and pinning happen in one transform (one pass
// over the batch).
// Expects SyntheticImages samples: contiguous float images, scalar long targets.
struct StackMaybePin
    : torch::data::transforms::BatchTransform<std::vector<torch::data::Example<>>, torch::data::Example<>> {
  explicit StackMaybePin(bool pin) : pin(pin) {}
  torch::data::Example<> apply_batch(std::vector<torch::data::Example<>> examples) override {
    TORCH_CHECK(!examples.empty(), "an empty batch");
    const auto& first = examples.front().data;
    std::vector<std::int64_t> sizes = {static_cast<std::int64_t>(examples.size())};
    sizes.insert(sizes.end(), first.sizes().begin(), first.sizes().end());
    auto x = torch::empty(sizes, first.options());
    auto y = torch::empty({sizes[0]}, torch::kLong);
    const std::size_t bytes = first.nbytes();
    auto* xd = static_cast<char*>(x.data_ptr());
    auto* yd = y.data_ptr<std::int64_t>();
    for (std::size_t i = 0; i < examples.size(); ++i) {
      const auto& e = examples[i];
      TORCH_CHECK(e.data.is_contiguous() && e.data.sizes() == first.sizes(), "samples of different shapes");
      std::memcpy(xd + i * bytes, e.data.data_ptr(), bytes);
      yd[i] = e.target.item<std::int64_t>();
    }
    if (!pin) return {x, y};
    auto xp = torch::empty(sizes, first.options().pinned_memory(true));
    auto yp = torch::empty({sizes[0]}, torch::TensorOptions(torch::kLong).pinned_memory(true));
    std::memcpy(xp.data_ptr(), x.data_ptr(), x.nbytes());
    std::memcpy(yp.data_ptr(), y.data_ptr(), y.nbytes());
    return {xp, yp};
  }
  bool pin;
};

// DataLoader options for `workers` threads and `prefetch` batches per worker.
// LibTorch trap: with 0 workers, max_jobs must stay unset, or that many batches
// are silently dropped per epoch.
inline torch::data::DataLoaderOptions loader_options(std::int64_t batch, std::int64_t workers, std::int64_t prefetch) {
  auto o = torch::data::DataLoaderOptions().batch_size(batch).workers(workers).enforce_ordering(false);
  if (workers > 0) o.max_jobs(workers * prefetch);
  return o;
}

}  // namespace optbench::workloads
