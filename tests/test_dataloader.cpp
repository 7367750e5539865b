// The dataloader experiment on the CPU: its preprocessing, the loaders it
// builds (every sample exactly once per epoch), the window a sample times (one
// epoch from a fresh iterator, nothing prepared between samples), and the
// invariants its numbers must obey. The invariants are timed, so they compare
// rates measured together in one interleaved run against physical limits with
// wide margins: a machine twice as fast or a noisy neighbour moves every rate
// alike, while the old one-batch samples, which found their batches ready,
// broke them by several times.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "workloads/data/loader_cases.h"
#include "workloads/synthetic_images.h"

using namespace optbench;
using namespace optbench::workloads;
using json = nlohmann::json;

namespace {

std::vector<int> epoch_counts(std::int64_t n, std::int64_t batch, std::int64_t workers, std::int64_t prefetch) {
  SyntheticImages ds(n, ImageSpec{16, 12, 10});
  auto loader = torch::data::make_data_loader(ds.map(StackMaybePin(false)), torch::data::samplers::RandomSampler(n),
                                              loader_options(batch, workers, prefetch));
  std::vector<int> seen(static_cast<size_t>(n), 0);
  for (int epoch = 0; epoch < 2; ++epoch) {  // the second epoch reuses the loader, as the experiment does
    for (auto& b : *loader) {
      EXPECT_EQ(b.data.size(1), 3);
      EXPECT_EQ(b.data.size(2), 12);
      for (int64_t i = 0; i < b.target.size(0); ++i) seen.at(static_cast<size_t>(b.target[i].item<int64_t>()))++;
    }
  }
  return seen;
}

// A loader-heavy loop: preprocessing dominates a tiny model's step, which is
// where a leaking queue shows most (its batches look free).
LoaderSetup small_setup() {
  LoaderSetup s;
  s.loop.model = "pool + linear";
  s.loop.image = {64, 56, 10};
  s.loop.batch = 8;
  s.loop.cpu_train_threads = 1;
  s.loop.net = [] {
    torch::manual_seed(0);
    return make_net(
        torch::nn::Sequential(torch::nn::AdaptiveAvgPool2d(4), torch::nn::Flatten(), torch::nn::Linear(48, 10)));
  };
  s.workers = {0, 1, 2};
  s.prefetch_workers = 1;
  s.prefetch = {1, 4};
  s.min_window = 8;
  s.window_factor = 4;
  return s;
}

json run_on_cpu(const Case& c) {
  auto backend = make_backend(DeviceKind::cpu);
  MeasureConfig cfg = measure_config_for(RunProfile::quick);
  cfg.warmup_min_s = 0.02;
  cfg.warmup_max_s = 0.3;
  cfg.stopping = {7, 0.2, 6.0, 100000, 0.03, 0.95};
  std::atomic<bool> stop{false};
  json r = to_json(run_case(c, *backend, cfg, CaseLimits{6.0, std::nullopt}, stop));
  // The rates, for whoever reads a failure (or wonders how close a bound came).
  std::cout << c.name << " (" << r.value("rounds", 0) << " rounds, " << r.value("stop_reason", "") << "):";
  for (const auto& v : r.value("variants", json::array()))
    std::cout << " " << v.value("name", "") << " " << v.value("throughput", json::object()).value("items_per_s", 0.0)
              << "/s;";
  std::cout << "\n";
  return r;
}

const json& variant(const json& r, const std::string& name) {
  for (const auto& v : r.at("variants"))
    if (v.at("name") == name) return v;
  throw std::runtime_error("no variant " + name);
}

double items_per_s(const json& r, const std::string& name) {
  const auto& v = variant(r, name);
  EXPECT_EQ(v.at("status"), "ok") << name << ": " << v.value("error", "");
  return v.at("throughput").at("items_per_s").get<double>();
}

}  // namespace

TEST(DataLoader, EverySampleExactlyOncePerEpoch) {
  for (std::int64_t workers : {0, 1, 2, 4}) {
    for (std::int64_t prefetch : {1, 2, 4, 8}) {
      const auto seen = epoch_counts(203, 16, workers, prefetch);  // 203: a ragged last batch
      for (size_t i = 0; i < seen.size(); ++i)
        ASSERT_EQ(seen[i], 2) << "sample " << i << " workers=" << workers << " prefetch=" << prefetch;
    }
  }
}

// The trap itself, so a LibTorch that fixes it is noticed: max_jobs with 0
// workers loses samples.
TEST(DataLoader, MaxJobsWithoutWorkersDropsBatchesInLibTorch) {
  SyntheticImages ds(256, ImageSpec{16, 12, 10});
  auto loader = torch::data::make_data_loader(ds.map(StackMaybePin(false)), torch::data::samplers::RandomSampler(256),
                                              torch::data::DataLoaderOptions().batch_size(16).workers(0).max_jobs(4));
  int64_t total = 0;
  for (auto& b : *loader) total += b.target.size(0);
  if (total == 256) GTEST_SKIP() << "this LibTorch no longer drops batches with max_jobs and 0 workers";
  EXPECT_LT(total, 256);
}

TEST(DataLoader, SamplesAreDeterministicAndNormalised) {
  SyntheticImages ds(4, ImageSpec{32, 24, 10});
  const auto a = ds.get(2).data, b = ds.get(2).data;
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_FALSE(at::equal(ds.get(1).data, a));
  EXPECT_EQ(a.sizes(), (c10::IntArrayRef{3, 24, 24}));
  // Normalize maps bytes 0..255 to (0 - mean) / std .. (1 - mean) / std per channel.
  for (int c = 0; c < 3; ++c) {
    const auto ch = a[c];
    EXPECT_GE(ch.min().item<float>(), -data::kMean[c] / data::kStd[c] - 1e-5f);
    EXPECT_LE(ch.max().item<float>(), (1 - data::kMean[c]) / data::kStd[c] + 1e-5f);
  }
  EXPECT_GT(a.std().item<float>(), 0.05f);  // an image, not a constant
  EXPECT_EQ(ds.counter()->samples.load(), 3);
  EXPECT_GT(ds.counter()->seconds_per_sample(), 0.0);
}

TEST(DataLoader, FlipMirrorsTheCropAndDecodeChecksItsSize) {
  std::vector<std::uint8_t> rgb;
  data::decode_like(7, 32, rgb);
  ASSERT_EQ(rgb.size(), 32u * 32u * 3u);
  std::vector<float> plain(3 * 20 * 20), flipped(3 * 20 * 20);
  data::crop_flip_normalize(rgb.data(), 32, 20, {5, 3, false}, plain.data());
  data::crop_flip_normalize(rgb.data(), 32, 20, {5, 3, true}, flipped.data());
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 20; ++x) ASSERT_EQ(flipped[(c * 20 + y) * 20 + x], plain[(c * 20 + y) * 20 + 19 - x]);
  // The crop starts where it says: the top-left byte of channel 0.
  EXPECT_NEAR(plain[0], (rgb[(5 * 32 + 3) * 3] / 255.0f - data::kMean[0]) / data::kStd[0], 1e-5);
  EXPECT_THROW(data::decode_like(1, 24, rgb), std::invalid_argument);
  EXPECT_THROW(data::random_crop_flip(1, 16, 17), std::invalid_argument);
}

// What a sample times: exactly one epoch of the window's batches, and no
// sample produced after the window ends (none waiting for the next sample to
// find ready). Counting, not timing: the old persistent iterator kept
// max_jobs batches in preparation after every step.
TEST(DataLoader, AWindowIsOneEpochAndTheLoaderIsIdleBetweenWindows) {
  LoaderSetup s = small_setup();
  s.loop.image = {32, 24, 10};
  for (LoopKind kind : {LoopKind::train, LoopKind::data_only}) {
    for (std::int64_t workers : {0, 2}) {
      const std::int64_t window = 6;
      LoaderLoop loop(s.loop, {workers, 2, false}, kind, window);
      for (int w = 1; w <= 2; ++w) {
        loop.step();
        const std::int64_t expected = w * window * s.loop.batch;
        EXPECT_EQ(loop.samples_prepared(), expected) << to_string(kind) << " workers=" << workers;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the harness timing other variants
        EXPECT_EQ(loop.samples_prepared(), expected) << "work done between windows, workers=" << workers;
      }
      EXPECT_EQ(loop.windows(), 2);
      EXPECT_EQ(loop.incomplete_windows(), 0);
      std::vector<Workload*> ws = {&loop};
      EXPECT_EQ(verify_windows(ws), "");
      EXPECT_EQ(loop.trains(), kind == LoopKind::train);
      if (loop.trains()) {
        EXPECT_TRUE(std::isfinite(loop.last_loss()));
      }
      const json m = loop.metrics();
      EXPECT_EQ(m["loop"], to_string(kind));
      EXPECT_EQ(m["window_batches"], window);
      EXPECT_GE(m["data_wait_fraction"].get<double>(), 0.0);
      EXPECT_LE(m["data_wait_fraction"].get<double>(), 1.0);
      EXPECT_GT(m["time_to_first_batch_s"].get<double>(), 0.0);
      EXPECT_GT(m["first_batch_share"].get<double>(), 0.0);
      EXPECT_LE(m["first_batch_share"].get<double>(), 1.0);
      EXPECT_GT(m["preprocess_s_per_sample"].get<double>(), 0.0);
    }
  }
}

// Every variant of a case times the same window (the same preprocessing work),
// so each pays its own pipeline fill over the same number of batches: with a
// window per variant, prefetch_8's fill weighed 4% of its window and
// prefetch_1's 23% on the H100 (gpu-runs/2026-11-24).
TEST(DataLoader, CasesPairEveryLoopWithItsDataOnlyLoopAndTheBoundOverOneWindow) {
  const LoaderSetup s = small_setup();
  EXPECT_EQ(window_batches(s, {{0, 2, false}}), 8);                  // the minimum
  EXPECT_EQ(window_batches(s, {{0, 2, false}, {4, 4, false}}), 64);  // 4 x the deepest's workers x prefetch
  for (const Case& c : {workers_case(s), prefetch_case(s)}) {
    ASSERT_GE(c.variants.size(), 3u);
    EXPECT_EQ(c.variants.front().params["loop"], "train");
    EXPECT_EQ(c.variants.back().name, "no_loader");
    EXPECT_EQ(c.timing, TimingMode::sync);
    std::vector<LoaderSettings> loaders;
    for (std::size_t i = 0; i + 1 < c.variants.size(); i += 2) {
      const auto& train = c.variants[i];
      const auto& data = c.variants[i + 1];
      EXPECT_EQ(train.role, VariantRole::optimized);
      EXPECT_EQ(data.role, VariantRole::reference);
      EXPECT_EQ(data.name, train.name + "_data_only");
      EXPECT_EQ(data.params["workers"], train.params["workers"]);
      EXPECT_EQ(data.params["prefetch"], train.params["prefetch"]);
      loaders.push_back(
          {train.params["workers"].get<std::int64_t>(), train.params["prefetch"].get<std::int64_t>(), false});
    }
    const double items = static_cast<double>(window_batches(s, loaders) * s.loop.batch);
    EXPECT_EQ(c.params["window_batches"], window_batches(s, loaders));
    for (const auto& v : c.variants) {
      ASSERT_TRUE(v.units);
      EXPECT_EQ(v.units->items, items) << c.name << "/" << v.name << " times another window";
    }
    EXPECT_TRUE(c.notes.contains("sample"));
    EXPECT_TRUE(c.notes.contains("fill"));
    EXPECT_GT(c.notes["preprocess_s_per_sample_one_thread"].get<double>(), 0.0);
  }
}

TEST(DataLoader, DerivedFiguresNameTheBound) {
  auto v = [](std::string name, std::string loop, int w, double ips, double wait = 0.1) {
    VariantResult r;
    r.name = std::move(name);
    r.params = {{"loop", loop}};
    r.throughput.items_per_s = ips;
    r.metrics = {{"data_wait_fraction", wait}};
    if (loop != "no_loader") {
      r.params["workers"] = w;
      r.params["prefetch"] = 2;
      r.params["pinned"] = false;
    }
    return r;
  };
  CaseResult r;
  r.name = "workers";
  r.variants = {v("workers_0", "train", 0, 100, 0.8), v("workers_0_data_only", "data_only", 0, 105),
                v("workers_1", "train", 1, 180),      v("workers_1_data_only", "data_only", 1, 400),
                v("workers_2", "train", 2, 290),      v("workers_2_data_only", "data_only", 2, 800),
                v("no_loader", "no_loader", 0, 300)};
  const json d = derive_loader(r);
  EXPECT_EQ(d["workers_0"]["bound"], "loader");
  EXPECT_NEAR(d["workers_0"]["of_data_only"].get<double>(), 100.0 / 105, 1e-9);
  EXPECT_EQ(d["workers_1"]["bound"], "neither (loading and training overlap incompletely)");
  EXPECT_EQ(d["workers_2"]["bound"], "training step");
  EXPECT_DOUBLE_EQ(d["workers_2"]["no_loader_samples_per_s"].get<double>(), 300);
  EXPECT_EQ(d["fewest_workers_within_10pct_of_best"], 2);
  EXPECT_DOUBLE_EQ(d["workers_0"]["data_wait_fraction"].get<double>(), 0.8);
}

// Invariants 1 and 2, from one interleaved run of the workers case.
//  - No loop produces samples faster than its threads can each preprocess them
//    (the best single-thread time, measured here), and no training loop beats
//    its own data-only loop or the no-loader bound.
//  - One worker gains at most what overlapping loading with training allows:
//    a batch taking max(L, T) instead of L + T, with L and T per batch from the
//    data-only loop without workers and the no-loader loop (at most 2x).
// Margins: on the shared 2-core CI VM the medians of two variants of one run
// have differed by up to 1.65x where they should agree, so the comparisons
// between variants allow 1.5-2x; the old one-batch samples broke them by 2-8x.
TEST(DataLoaderInvariants, NoLoopBeatsItsBoundsAndOneWorkerAtMostDoublesThroughput) {
  const LoaderSetup s = small_setup();
  // No loader produces samples faster than its threads can each preprocess them.
  const double per_sample = preprocess_seconds_one_thread(s.loop.image, 20);
  const json r = run_on_cpu(workers_case(s));
  ASSERT_EQ(r["status"], "ok") << r.dump();
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  const double bound = items_per_s(r, "no_loader");
  for (std::int64_t w : s.workers) {
    const std::string name = "workers_" + std::to_string(w);
    const double train = items_per_s(r, name), data_only = items_per_s(r, name + "_data_only");
    const double producers = std::min<double>(static_cast<double>(std::max<std::int64_t>(w, 1)), cores);
    const double can_produce = producers / per_sample;
    EXPECT_LE(data_only, 1.5 * can_produce) << name << ": " << data_only << " samples/s from " << producers
                                            << " thread(s) at " << per_sample << " s per sample";
    EXPECT_LE(train, 1.5 * can_produce) << name << " trains faster than its threads can preprocess";
    EXPECT_LE(train, 2.0 * data_only) << name << " trains faster than its loader delivers";
    EXPECT_LE(train, 2.0 * bound) << name << " trains faster than with the data already in place";
  }
  const double load = 1 / items_per_s(r, "workers_0_data_only"), train = 1 / bound;
  const double overlap = (load + train) / std::max(load, train);  // <= 2
  EXPECT_LE(items_per_s(r, "workers_1"), 1.5 * overlap * items_per_s(r, "workers_0"))
      << "overlapping loading with training gives at most " << overlap << "x";
}

// Invariant 3: a longer window cannot lower the rate; it only spreads the
// start-up thinner. A queue filled between samples makes short windows look
// fast, so with it the rate falls as the window grows.
TEST(DataLoaderInvariants, ALongerWindowIsNotSlower) {
  const LoaderSetup s = small_setup();
  Case c;
  c.name = "window_length";
  c.timing = TimingMode::sync;
  const LoaderSettings one_worker{1, 2, false};
  c.variants = {loop_variant(s, "short", "2 batches", one_worker, LoopKind::train, 2),
                loop_variant(s, "long", "16 batches", one_worker, LoopKind::train, 16)};
  c.units = *c.variants.front().units;
  const json r = run_on_cpu(c);
  ASSERT_EQ(r["status"], "ok") << r.dump();
  EXPECT_GE(items_per_s(r, "long"), items_per_s(r, "short") / 1.5);
}

// The prefetch ratio measures prefetching, not the window: prefetch_8 /
// prefetch_1 over windows of 8 batches and over windows of 64, all four loops
// interleaved in one run (so a neighbour's load moves them alike; two separate
// runs differed by 1.6x under a loaded CI). One worker on a loader-bound loop:
// a deeper queue cannot make the worker faster, so the ratio is about 1 at any
// window. With a window per variant (4 x workers x prefetch, the old rule) the
// same comparison gave the fill amortised over a longer window: about 1.8 at
// the short windows and 1.1 at the long ones. Two CI tests beside it on two
// cores once moved a correct run to 1.41 (1.36 vs 0.97), so a second run is
// taken when the first misses: the old rule's 1.6 would have to miss twice.
TEST(DataLoaderInvariants, ThePrefetchRatioDoesNotMoveWithTheWindowLength) {
  const LoaderSetup s = small_setup();
  Case c;
  c.name = "prefetch_windows";
  c.timing = TimingMode::sync;
  for (std::int64_t w : {8, 64})
    for (std::int64_t p : {1, 8})
      c.variants.push_back(
          loop_variant(s, "p" + std::to_string(p) + "_w" + std::to_string(w), "", {1, p, false}, LoopKind::train, w));
  c.units = *c.variants.front().units;
  double apart = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const json r = run_on_cpu(c);
    ASSERT_EQ(r["status"], "ok") << r.dump();
    const double short_ratio = items_per_s(r, "p8_w8") / items_per_s(r, "p1_w8");
    const double long_ratio = items_per_s(r, "p8_w64") / items_per_s(r, "p1_w64");
    std::cout << "prefetch_8 / prefetch_1: " << short_ratio << " (8 batches), " << long_ratio << " (64 batches)\n";
    apart = std::max(short_ratio, long_ratio) / std::min(short_ratio, long_ratio);
    if (apart < 1.35) break;
  }
  EXPECT_LT(apart, 1.35);
}
