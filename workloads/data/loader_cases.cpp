#include "workloads/data/loader_cases.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "harness/case_result.h"

namespace optbench::workloads {
namespace {

using json = nlohmann::json;

Case base_case(const LoaderSetup& s, std::string name, std::int64_t window) {
  Case c;
  c.name = std::move(name);
  const auto& l = s.loop;
  c.params = {{"model", l.model},
              {"batch", l.batch},
              {"image", l.image.size},
              {"crop", l.image.crop},
              {"precision", to_string(l.train.precision)},
              {"channels_last", l.train.channels_last},
              {"cores", std::max(1u, std::thread::hardware_concurrency())},
              {"window_batches", window}};
  c.timing = TimingMode::sync;  // the loader blocks the host
  c.units.item_name = "samples";
  c.verify = verify_windows;
  c.derive = derive_loader;
  c.notes = {
      {"sample",
       "one sample = one epoch of a dataset holding exactly the case's window of batches, from a fresh "
       "iterator: it starts with the pipeline empty and idle and ends when every batch has been consumed and the "
       "device has finished, so the workers are idle again; nothing is prepared for a sample while other variants "
       "are timed"},
      {"window", std::to_string(window) + " batches for every variant of the case (at least " +
                     std::to_string(s.min_window) + ", and " + std::to_string(s.window_factor) +
                     " x workers x prefetch of its deepest loader), so each pays its own pipeline fill over the same "
                     "work"},
      {"fill",
       "the pipeline fill (time to the first batch of a fresh iterator) is in every window once and is "
       "reported apart: metrics.time_to_first_batch_s and first_batch_share (of the window)"},
      {"loops",
       "train: the loader's batches copied to the device and trained on; *_data_only: the same loader and "
       "copies without training (the loop's data-only rate); no_loader: training on one batch already on the "
       "device (the bound for any loader)"},
      {"data_wait", "share of the window spent in the loader's next(), as PyTorch's ImageNet example counts data time"},
      {"preprocess_s_per_sample_one_thread",
       s.preprocess_s_one_thread > 0 ? s.preprocess_s_one_thread : preprocess_seconds_one_thread(l.image)},
      {"preprocessing", "per sample: JPEG-like decode (4:2:0, 8x8 inverse DCT, colour conversion) of a " +
                            std::to_string(l.image.size) + "px image, random " + std::to_string(l.image.crop) +
                            "px crop, horizontal flip with p = 0.5, normalised to float CHW; plain loops, one "
                            "thread per sample in every loop"}};
  if (l.device == DeviceKind::cpu && l.cpu_train_threads > 0) {
    c.params["train_threads"] = l.cpu_train_threads;
    c.notes["train_threads"] = "the training step runs on " + std::to_string(l.cpu_train_threads) +
                               " intra-op thread(s), standing in for the accelerator, so the loader's threads have "
                               "the other cores";
  }
  if (l.train.precision == Precision::amp_fp16)
    c.notes["grad_scaler"] =
        "each step reads GradScaler's found-inf flag on the host (as Python's "
        "GradScaler.step does): one host-device sync per step";
  return c;
}

// The training loop, its data-only loop right after it.
struct Setting {
  std::string name, description;
  LoaderSettings loader;
};

// Per setting its training loop and, right after it, its data-only loop; the
// no-loader bound last. One window for all of them.
Case build_case(const LoaderSetup& s, std::string name, const std::vector<Setting>& settings) {
  std::vector<LoaderSettings> loaders;
  for (const auto& st : settings) loaders.push_back(st.loader);
  const std::int64_t w = window_batches(s, loaders);
  Case c = base_case(s, std::move(name), w);
  for (const auto& st : settings) {
    c.variants.push_back(loop_variant(s, st.name, st.description, st.loader, LoopKind::train, w));
    c.variants.push_back(loop_variant(s, st.name + "_data_only", st.description + "; loading and copies only",
                                      st.loader, LoopKind::data_only, w));
  }
  c.variants.push_back(loop_variant(s, "no_loader", "training on one batch already on the device (the bound)", {},
                                    LoopKind::no_loader, w));
  c.units = *c.variants.front().units;
  return c;
}

const VariantResult* find(const std::vector<VariantResult>& variants, const std::string& loop, const json& like) {
  for (const auto& v : variants) {
    const json& p = v.params;
    if (p.value("loop", "") != loop) continue;
    if (like.is_null() ||
        (p.value("workers", -1) == like.value("workers", -2) && p.value("prefetch", -1) == like.value("prefetch", -2) &&
         p.value("pinned", false) == like.value("pinned", false)))
      return &v;
  }
  return nullptr;
}

std::optional<double> rate(const VariantResult* v) {
  if (!v || v->status != VariantStatus::ok) return std::nullopt;
  return v->throughput.items_per_s;
}

}  // namespace

double preprocess_seconds_one_thread(const ImageSpec& image, int passes) {
  const int per_pass = 8;
  std::vector<float> out(static_cast<std::size_t>(3 * image.crop * image.crop));
  double best = std::numeric_limits<double>::infinity();
  for (int pass = 0; pass < passes; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < per_pass; ++i)
      preprocess_sample(static_cast<std::uint64_t>(pass * per_pass + i), image, out.data());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / per_pass);
  }
  return best;
}

std::int64_t window_batches(const LoaderSetup& s, const std::vector<LoaderSettings>& settings) {
  std::int64_t deepest = 0;
  for (const auto& l : settings) deepest = std::max(deepest, l.workers * l.prefetch);
  return std::max(s.min_window, s.window_factor * deepest);
}

Variant loop_variant(const LoaderSetup& s, const std::string& name, const std::string& description, LoaderSettings l,
                     LoopKind kind, std::int64_t w) {
  const LoopSpec spec = s.loop;
  Variant v{name, description + " (" + std::to_string(w) + " batches a window)",
            [spec, l, kind, w] { return std::make_unique<LoaderLoop>(spec, l, kind, w); }};
  v.role = kind == LoopKind::train ? VariantRole::optimized : VariantRole::reference;
  v.units = WorkUnits{0, 0, static_cast<double>(w * s.loop.batch), "samples"};
  v.params = {{"loop", to_string(kind)}};
  if (kind != LoopKind::no_loader) {
    v.params["workers"] = l.workers;
    v.params["prefetch"] = l.prefetch;
    v.params["pinned"] = l.pin;
  }
  return v;
}

Case workers_case(const LoaderSetup& s) {
  std::vector<Setting> settings;
  for (std::int64_t w : s.workers)
    settings.push_back({"workers_" + std::to_string(w),
                        w == 0 ? "loading in the training thread" : std::to_string(w) + " worker threads",
                        {w, s.default_prefetch, false}});
  Case c = build_case(s, "workers", settings);
  c.params["prefetch"] = s.default_prefetch;
  return c;
}

Case prefetch_case(const LoaderSetup& s) {
  std::vector<Setting> settings;
  for (std::int64_t p : s.prefetch)
    settings.push_back(
        {"prefetch_" + std::to_string(p), std::to_string(p) + " batches per worker", {s.prefetch_workers, p, false}});
  Case c = build_case(s, "prefetch_w" + std::to_string(s.prefetch_workers), settings);
  c.params["workers"] = s.prefetch_workers;
  return c;
}

Case pin_case(const LoaderSetup& s) {
  Case c = build_case(
      s, "pin_w" + std::to_string(s.pin_workers),
      {{"unpinned", "pageable batches, blocking copy", {s.pin_workers, s.default_prefetch, false}},
       {"pinned", "batches pinned in the worker, non_blocking copy", {s.pin_workers, s.default_prefetch, true}}});
  c.params["workers"] = s.pin_workers;
  c.params["prefetch"] = s.default_prefetch;
  return c;
}

std::string verify_windows(std::vector<Workload*>& ws) {
  for (Workload* w : ws) {
    auto* loop = dynamic_cast<LoaderLoop*>(w);
    if (!loop) return "not a loader loop";
    if (loop->incomplete_windows() > 0)
      return std::to_string(loop->incomplete_windows()) + " of " + std::to_string(loop->windows()) +
             " windows did not deliver every sample of their epoch exactly once";
    if (loop->trains() && !std::isfinite(loop->last_loss()))
      return "the training loss is not finite: " + std::to_string(loop->last_loss());
  }
  return "";
}

json derive_loader(const CaseResult& r) {
  json out = json::object();
  const auto& vs = r.variants;
  const auto bound = rate(find(vs, "no_loader", nullptr));
  std::optional<double> best;
  std::vector<std::pair<std::int64_t, double>> by_workers;
  for (const auto& v : vs) {
    const json& p = v.params;
    if (p.value("loop", "") != "train") continue;
    const auto train = rate(&v);
    if (!train) continue;
    const auto data_only = rate(find(vs, "data_only", p));
    const json& m = v.metrics;
    json d = {{"samples_per_s", *train},
              {"data_only_samples_per_s", data_only ? json(*data_only) : json(nullptr)},
              {"no_loader_samples_per_s", bound ? json(*bound) : json(nullptr)},
              {"data_wait_fraction", m.value("data_wait_fraction", json(nullptr))},
              {"time_to_first_batch_s", m.value("time_to_first_batch_s", json(nullptr))},
              {"first_batch_share", m.value("first_batch_share", json(nullptr))}};
    std::optional<double> of_data, of_bound;
    if (data_only && *data_only > 0) {
      of_data = *train / *data_only;
      d["of_data_only"] = *of_data;
    }
    if (bound && *bound > 0) {
      of_bound = *train / *bound;
      d["of_no_loader"] = *of_bound;
    }
    // Which side holds the loop back: within 15% of one rate, and nearer it than the other.
    if (of_data && *of_data >= 0.85 && (!of_bound || *of_data >= *of_bound))
      d["bound"] = "loader";
    else if (of_bound && *of_bound >= 0.85)
      d["bound"] = "training step";
    else if (of_data && of_bound)
      d["bound"] = "neither (loading and training overlap incompletely)";
    out[v.name] = d;
    best = std::max(best.value_or(0.0), *train);
    if (r.name == "workers") by_workers.emplace_back(p.value("workers", std::int64_t{0}), *train);
  }
  if (best && !by_workers.empty()) {
    std::sort(by_workers.begin(), by_workers.end());
    for (const auto& [w, t] : by_workers)
      if (t >= 0.9 * *best) {
        out["fewest_workers_within_10pct_of_best"] = w;
        break;
      }
  }
  return out;
}

}  // namespace optbench::workloads
