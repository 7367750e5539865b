#pragma once
// The dataloader experiment's cases, built from one setup so the experiment
// (workloads/dataloader.cpp) and the tests (smaller, on the CPU) build the same
// thing. Each case holds, per loader setting, the training loop and its
// data-only loop (a reference variant), and the no-loader bound. Every variant
// of a case times the same window of batches (the same preprocessing work), so
// each pays its own pipeline fill over the same number of batches; the fill
// (time to the first batch) is also reported apart.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/experiment.h"
#include "workloads/data/loader_loop.h"

namespace optbench::workloads {

struct LoaderSetup {
  LoopSpec loop;
  std::vector<std::int64_t> workers;   // the workers sweep; the first is the baseline
  std::int64_t default_prefetch = 2;   // PyTorch's prefetch_factor default
  std::int64_t prefetch_workers = 1;   // workers in the prefetch case
  std::vector<std::int64_t> prefetch;  // depths; the first is the baseline
  std::int64_t pin_workers = 0;        // workers in the pin case; 0: no pin case (a CPU run)
  // A case's window holds at least min_window batches and at least
  // window_factor x workers x prefetch of its deepest setting: several times
  // what any of its loaders holds in flight.
  std::int64_t min_window = 16;
  std::int64_t window_factor = 4;
  // One sample's preprocessing on an idle thread, for the case notes; measured
  // by the case builders when 0 (set it once to give every case the same note).
  double preprocess_s_one_thread = 0;
};

// One sample's preprocessing on this thread: the best of `passes` passes of 8
// samples, so another process's burst does not inflate it.
double preprocess_seconds_one_thread(const ImageSpec& image, int passes = 3);

// The one window of a case whose loaders have these settings.
std::int64_t window_batches(const LoaderSetup& s, const std::vector<LoaderSettings>& settings);

// One loop as a variant, named after its setting ("workers_2", "prefetch_4",
// "pinned"), with "_data_only" appended for the data-only loop. Variant params
// carry the setting and the loop kind; units are the window's samples.
Variant loop_variant(const LoaderSetup& s, const std::string& name, const std::string& description, LoaderSettings l,
                     LoopKind kind, std::int64_t window);

Case workers_case(const LoaderSetup& s);
Case prefetch_case(const LoaderSetup& s);
Case pin_case(const LoaderSetup& s);

// Every variant's windows delivered each sample of their epoch exactly once.
std::string verify_windows(std::vector<Workload*>& ws);

// Per training loop: samples/s, its data-only rate and the no-loader bound,
// what share of each it reaches, the share of time waiting for data, and which
// side bounds it; per case, the fewest workers within 10% of the best.
nlohmann::json derive_loader(const CaseResult& result);

}  // namespace optbench::workloads
