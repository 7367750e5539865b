// Checklist #2 num_workers ("High, ~20-50% if CPU bottlenecked"), #8
// prefetch_factor ("~10-20%") and #1 pin_memory in the loader: LibTorch's
// DataLoader over images that cost real CPU work, feeding a training step on the
// device. Reports samples/s, the share of each step spent waiting for data, and
// the no-loader upper bound (data already on the device).
#include <torch/torch.h>

#include <chrono>
#include <thread>

#include "harness/compat/zero_grad.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/synthetic_images.h"

namespace optbench::workloads {
namespace {

using Clock = std::chrono::steady_clock;


struct LoaderConfig {
  std::int64_t workers = 0, prefetch = 2;
  bool pin = false;
  bool on_device = false;  // no loader at all: the upper bound
};

struct Sizes {
  std::int64_t dataset, batch;
  ImageSpec image;
};

torch::nn::Sequential small_cnn(std::int64_t classes) {
  torch::manual_seed(0);
  return torch::nn::Sequential(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 32, 3).stride(2).padding(1)), torch::nn::ReLU(),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).stride(2).padding(1)), torch::nn::ReLU(),
      torch::nn::AdaptiveAvgPool2d(1), torch::nn::Flatten(), torch::nn::Linear(64, classes));
}

template <class Loader>
class LoaderIterator {
 public:
  explicit LoaderIterator(std::unique_ptr<Loader> l) : loader_(std::move(l)), it_(loader_->begin()) {}
  // Next batch, starting a new epoch when one ends.
  auto next() {
    if (it_ == loader_->end()) it_ = loader_->begin();
    auto b = *it_;
    ++it_;
    return b;
  }

 private:
  std::unique_ptr<Loader> loader_;
  decltype(loader_->begin()) it_;
};

class LoaderStep final : public Workload {
 public:
  LoaderStep(const Sizes& s, const LoaderConfig& cfg, DeviceKind d)
      : device_(torch_device(d)), cfg_(cfg), classes_(s.image.classes), net_(small_cnn(s.image.classes)) {
    net_->to(device_);
    opt_ = std::make_unique<torch::optim::SGD>(net_->parameters(), torch::optim::SGDOptions(0.01));
    SyntheticImages ds(s.dataset, s.image);
    if (cfg.on_device) {
      std::vector<torch::Tensor> xs;
      for (std::int64_t i = 0; i < s.batch; ++i) xs.push_back(ds.get(static_cast<size_t>(i)).data);
      resident_x_ = torch::stack(xs).to(device_);
      resident_y_ = torch::arange(s.batch, torch::kLong).remainder(classes_).to(device_);
      return;
    }
    loader_ = std::make_unique<Iter>(torch::data::make_data_loader(
        ds.map(StackMaybePin(cfg.pin)), torch::data::samplers::RandomSampler(s.dataset),
        loader_options(s.batch, cfg.workers, cfg.prefetch)));
  }

  void step() override {
    torch::Tensor x, y;
    const auto t0 = Clock::now();
    if (cfg_.on_device) {
      x = resident_x_;
      y = resident_y_;
    } else {
      auto b = loader_->next();
      x = b.data.to(device_, /*non_blocking=*/cfg_.pin);
      y = b.target.remainder(classes_).to(device_, /*non_blocking=*/cfg_.pin);
    }
    const auto t1 = Clock::now();
    compat::zero_grad(*opt_, /*set_to_none=*/true);  // the same on LibTorch 1.13 and 2.x
    auto loss = torch::nn::functional::cross_entropy(net_->forward(x), y);
    loss.backward();
    opt_->step();
    wait_s_ += std::chrono::duration<double>(t1 - t0).count();
    ++steps_;
    last_loss_ = loss.detach();
  }

  nlohmann::json metrics() override {
    return {{"mean_data_wait_s", steps_ ? wait_s_ / static_cast<double>(steps_) : 0.0}, {"steps", steps_}};
  }

 private:
  using Loader = std::remove_reference_t<decltype(*torch::data::make_data_loader(
      std::declval<SyntheticImages>().map(StackMaybePin(false)), torch::data::samplers::RandomSampler(1),
      torch::data::DataLoaderOptions()))>;
  using Iter = LoaderIterator<Loader>;

  torch::Device device_;
  LoaderConfig cfg_;
  std::int64_t classes_;
  torch::nn::Sequential net_;
  std::unique_ptr<torch::optim::SGD> opt_;
  std::unique_ptr<Iter> loader_;
  torch::Tensor resident_x_, resident_y_, last_loss_;
  double wait_s_ = 0;
  std::int64_t steps_ = 0;
};

// Share of each step spent waiting for data, from the variants' own metrics and
// the measured step time.
nlohmann::json data_wait_fractions(const nlohmann::json& r) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& v : r["variants"]) {
    if (!v["stats"].is_object() || !v.contains("metrics")) continue;
    const double step = v["stats"]["median"].get<double>();
    const double wait = v["metrics"].value("mean_data_wait_s", 0.0);
    if (step > 0) out[v["name"].get<std::string>()] = {{"data_wait_fraction", std::min(1.0, wait / step)}};
  }
  return out;
}

class DataLoaderExperiment final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"dataloader",
            "DataLoader worker threads, prefetch depth and pinned batches",
            "num_workers > 0, prefetch (max_jobs), pinning batches in the worker",
            {"num_workers", "prefetch_factor", "pin_memory"},
            "LibTorch's DataLoader over synthetic images with decode+crop+flip+normalize cost, feeding a small CNN "
            "training step. Variants: 0 workers (baseline) vs 1, 2, 4, ... up to the core count; prefetch depth 1, "
            "2, 4, 8; pinning the batch in the worker (GPU); and the upper bound with data already on the device. "
            "Reports samples/s and the share of each step spent waiting for data."};
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const DeviceKind d = ctx.device;
    const bool gpu = d == DeviceKind::cuda;
    const Sizes s = gpu ? Sizes{8192, 256, {128, 112, 10}} : Sizes{1024, 32, {64, 56, 10}};
    const std::int64_t cores = std::max(1u, std::thread::hardware_concurrency());
    auto variant = [=](std::string name, std::string desc, LoaderConfig cfg, VariantRole role = VariantRole::optimized) {
      Variant v{std::move(name), std::move(desc), [=] { return std::make_unique<LoaderStep>(s, cfg, d); }};
      v.role = role;
      return v;
    };
    auto base_case = [&](std::string name) {
      Case c;
      c.name = std::move(name);
      c.params = {{"batch", s.batch}, {"image", s.image.size}, {"crop", s.image.crop}, {"cores", cores}};
      c.timing = TimingMode::sync;  // the loader blocks the host
      c.units.items = static_cast<double>(s.batch);
      c.derive = data_wait_fractions;
      return c;
    };
    const auto upper = variant("on_device", "no loader: the batch already on the device", {0, 0, false, true},
                               VariantRole::reference);

    Case workers = base_case("workers");
    workers.variants.push_back(variant("workers_0", "loading in the training thread", {0, 2, false}));
    workers.variants.back().params = {{"workers", 0}};
    for (std::int64_t w = 1; w <= cores; w *= 2) {
      workers.variants.push_back(variant("workers_" + std::to_string(w), std::to_string(w) + " worker threads", {w, 2, false}));
      workers.variants.back().params = {{"workers", w}};
    }
    workers.variants.push_back(upper);

    const std::int64_t pw = std::max<std::int64_t>(1, cores / 2);
    Case prefetch = base_case("prefetch_w" + std::to_string(pw));
    prefetch.params["workers"] = pw;
    for (std::int64_t p : {1, 2, 4, 8})
    {
      prefetch.variants.push_back(variant("prefetch_" + std::to_string(p), std::to_string(p) + " batches per worker", {pw, p, false}));
      prefetch.variants.back().params = {{"prefetch", p}};
    }

    std::vector<Case> out = {workers, prefetch};
    if (gpu) {
      Case pin = base_case("pin_w" + std::to_string(pw));
      pin.params["workers"] = pw;
      pin.variants = {variant("unpinned", "pageable batches, blocking copy", {pw, 2, false}),
                      variant("pinned", "batches pinned in the worker, non_blocking copy", {pw, 2, true}), upper};
      out.push_back(pin);
    }
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(DataLoaderExperiment);

}  // namespace
}  // namespace optbench::workloads
