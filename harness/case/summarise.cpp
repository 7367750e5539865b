// The case's record once its phases have run: each variant's summaries, the
// case's status, its derived figures and where its time went.
#include <algorithm>

#include "harness/case/phases.h"
#include "harness/stats.h"

namespace optbench::case_run {
namespace {

// NVML clocks-event reason bits (nvml.h, nvmlClocksEventReason*), grouped into
// what a reader can act on: cooling, the power limit, anything else that slows
// the clock. Idle, application-clock and display settings are not throttling.
constexpr std::uint64_t kThermalReasons = 0x20 | 0x40;  // SW / HW thermal slowdown
constexpr std::uint64_t kPowerReasons = 0x4 | 0x80;     // SW power cap, HW power brake
constexpr std::uint64_t kOtherReasons = 0x8 | 0x10;     // HW slowdown, sync boost

std::optional<Summary> summary_of(const std::vector<double>& xs) {
  if (xs.empty()) return std::nullopt;
  return summarize(xs);
}

Throughput throughput(const WorkUnits& u, double seconds) {
  Throughput t;
  if (!(seconds > 0)) return t;
  if (u.bytes > 0) t.bytes_per_s = u.bytes / seconds;
  if (u.flops > 0) t.flops_per_s = u.flops / seconds;
  if (u.items > 0) t.items_per_s = u.items / seconds;
  return t;
}

// None without clock-event reasons (no NVML).
std::optional<ThrottleShares> throttle_shares(const std::vector<std::uint64_t>& reasons) {
  if (reasons.empty()) return std::nullopt;
  auto share = [&](std::uint64_t mask) {
    const auto n = std::count_if(reasons.begin(), reasons.end(), [&](std::uint64_t r) { return (r & mask) != 0; });
    return static_cast<double>(n) / static_cast<double>(reasons.size());
  };
  return ThrottleShares{share(kThermalReasons), share(kPowerReasons), share(kOtherReasons), reasons.size()};
}

// Median and min of each figure over the samples that read it (NVML, once per
// sample while the GPU works on it); none where none was read (a CPU run).
std::optional<NvidiaSmi> nvidia_smi_summary(const std::vector<double>& gpu_util, const std::vector<double>& memory_util,
                                            const std::vector<double>& sm_clock, const std::vector<double>& power) {
  if (gpu_util.empty() && memory_util.empty() && power.empty()) return std::nullopt;
  auto median_min = [](const std::vector<double>& xs) -> std::optional<MedianMin> {
    if (xs.empty()) return std::nullopt;
    return MedianMin{median(xs), *std::min_element(xs.begin(), xs.end())};
  };
  NvidiaSmi s;
  s.gpu_util_pct = median_min(gpu_util);
  s.memory_util_pct = median_min(memory_util);
  s.power_w = median_min(power);
  s.sm_clock_mhz = median_min(sm_clock);  // beside them, as nvidia-smi shows it; alone it is the throttle record's
  s.samples = std::max({gpu_util.size(), memory_util.size(), power.size()});
  return s;
}

}  // namespace

CaseResult describe_case(const Case& c, const DeviceBackend& backend) {
  CaseResult out;
  out.name = c.name;
  out.params = c.params;
  out.timing_mode = c.timing;
  out.primary_metric = primary_metric(backend, c.timing);
  out.hold_stream = c.hold_stream;
  out.oom_expected = c.oom_expected;
  out.units = c.units;
  out.notes = c.notes;
  return out;
}

std::vector<VariantResult> variant_results(CaseRun& run) {
  std::vector<VariantResult> out;
  for (auto& v : run.vs) {
    VariantResult r = std::move(v.result);
    r.stats = summary_of(v.primary);
    r.host_stats = summary_of(r.samples.host_s);
    r.device_stats = summary_of(r.samples.device_s);
    if (!v.primary.empty()) r.throughput = throughput(units_of(run.c, v), median(v.primary));
    r.throttle = throttle_shares(r.samples.clock_event_reasons);
    if (r.throttle && r.timing_mode == TimingMode::sync) r.throttle->read = ThrottleRead::after_work;
    r.nvidia_smi = nvidia_smi_summary(v.gpu_util, v.memory_util, r.samples.sm_clock_mhz, v.power);
    out.push_back(std::move(r));
  }
  return out;
}

void settle_status(const CaseRun& run, CaseResult& out) {
  const VariantResult& base = out.variants.at(0);
  if (run.reason == StopReason::interrupted) {
    out.status = CaseStatus::interrupted;
  } else if (base.status == VariantStatus::ok && (!run.rounds_refused.empty() || run.budget_short())) {
    out.status = CaseStatus::not_run;
    out.reason =
        !run.rounds_refused.empty() ? run.rounds_refused : BudgetGate::ended_below_floor(run.rounds, run.floor);
  } else if (base.status == VariantStatus::not_run) {
    out.status = CaseStatus::not_run;
    out.reason = base.error;
  } else if (base.status != VariantStatus::ok) {
    out.status = CaseStatus::failed;
    out.reason = std::string("baseline ") + to_string(base.status) + ": " + base.error;
  } else {
    out.status = CaseStatus::ok;
  }
}

void derive_figures(const Case& c, CaseResult& out) {
  if (!c.derive) return;
  try {
    out.derived = c.derive(out);
  } catch (const std::exception& e) {
    out.derived = nlohmann::json{{"error", e.what()}};
  }
}

TimeSplit time_split(const CaseRun& run, const CaseResult& out, double verification_s, double profiling_s,
                     double cold_s) {
  TimeSplit t;
  for (const auto& v : run.vs) {
    t.build += v.prep.build_s;
    t.warmup += v.prep.warmup.seconds;
  }
  t.sampling = out.sampling_s;
  t.verification = verification_s;
  t.profiling = profiling_s;
  t.other = std::max(0.0, out.wall_s - t.build - t.warmup - t.sampling - t.verification - t.profiling - cold_s);
  if (run.isolate && run.c.cold_first_step) t.cold_first_steps = cold_s;
  return t;
}

}  // namespace optbench::case_run
