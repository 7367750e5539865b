#pragma once
// A dataset whose samples cost real CPU work, like decoding and augmenting a
// JPEG: a uint8 image is generated from the index (the "decode"), randomly
// cropped and flipped, converted to float and normalised. Shared by the
// dataloader experiment and its tests.
#include <torch/torch.h>

#include <cstdint>

namespace optbench::workloads {

struct ImageSpec {
  std::int64_t size = 64;   // stored image side
  std::int64_t crop = 56;   // side after random crop
  std::int64_t classes = 10;
};

class SyntheticImages : public torch::data::datasets::Dataset<SyntheticImages> {
 public:
  SyntheticImages(std::int64_t n, ImageSpec spec) : n_(n), spec_(spec) {}

  torch::data::Example<> get(size_t index) override {
    auto gen = at::detail::createCPUGenerator(0x1000 + index);
    const auto s = spec_.size;
    auto img = at::randint(0, 256, {3, s, s}, gen, at::TensorOptions().dtype(at::kByte));
    const auto y0 = at::randint(0, s - spec_.crop + 1, {1}, gen).item<int64_t>();
    const auto x0 = at::randint(0, s - spec_.crop + 1, {1}, gen).item<int64_t>();
    auto t = img.narrow(1, y0, spec_.crop).narrow(2, x0, spec_.crop);
    if (at::randint(0, 2, {1}, gen).item<int64_t>() == 1) t = t.flip({2});
    t = t.to(at::kFloat).div_(255.0f).sub_(0.5f).div_(0.25f).contiguous();
    // The label carries the index so tests can check each sample arrives once.
    return {t, torch::tensor(static_cast<int64_t>(index), torch::kLong)};
  }

  torch::optional<size_t> size() const override { return static_cast<size_t>(n_); }

 private:
  std::int64_t n_;
  ImageSpec spec_;
};

// Stack<> plus optional page-locking, inside the worker thread: LibTorch has no
// pin_memory option, and 1.13 cannot chain a second map() after Stack<> (its
// static_assert names BatchType::value_type), so both happen in one transform.
struct StackMaybePin
    : torch::data::transforms::BatchTransform<std::vector<torch::data::Example<>>, torch::data::Example<>> {
  explicit StackMaybePin(bool pin) : pin(pin) {}
  torch::data::Example<> apply_batch(std::vector<torch::data::Example<>> examples) override {
    std::vector<torch::Tensor> xs, ys;
    xs.reserve(examples.size());
    ys.reserve(examples.size());
    for (auto& e : examples) {
      xs.push_back(std::move(e.data));
      ys.push_back(std::move(e.target));
    }
    auto x = torch::stack(xs), y = torch::stack(ys);
    if (pin) return {x.pin_memory(), y.pin_memory()};
    return {x, y};
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
