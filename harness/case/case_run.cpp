#include "harness/case/case_run.h"

#include <stdexcept>

#include "harness/stats.h"

namespace optbench::case_run {
namespace {

// The amount of work speedups are normalised by: FLOPs, else bytes, else items.
double work_amount(const WorkUnits& u) {
  if (u.flops > 0) return u.flops;
  if (u.bytes > 0) return u.bytes;
  if (u.items > 0) return u.items;
  return 1.0;
}

bool isolated(const Case& c, const MeasureConfig& cfg, const CaseLimits& limits) {
  if (c.variants.empty()) throw std::logic_error("case '" + c.name + "' has no variants");
  const bool isolate = c.isolate || (cfg.isolate && !c.process_bound);
  if (isolate && !limits.origin)
    throw std::logic_error("case '" + c.name + "' needs worker processes, but has no origin");
  return isolate;
}

}  // namespace

CaseRun::CaseRun(const Case& c_, DeviceBackend& backend_, const MeasureConfig& cfg_, const CaseLimits& limits_,
                 const std::atomic<bool>& stop_requested_)
    : c(c_),
      backend(backend_),
      cfg(cfg_),
      limits(limits_),
      stop_requested(stop_requested_),
      gate(limits_.deadline_s, backend_),
      isolate(isolated(c_, cfg_, limits_)),
      floor(rounds_floor(cfg_.stopping.confidence)),
      t_case(backend_.now()),
      vs(c_.variants.size()) {}

PreparedCost cost_of(const VariantState& v) {
  return {v.prep.build_s, v.prep.warmup.first_run_s, v.prep.warmup.step_s, v.prep.iters};
}

std::vector<PreparedCost> CaseRun::prepared_costs() const {
  std::vector<PreparedCost> out;
  for (const auto& v : vs)
    if (v.prepared) out.push_back(cost_of(v));
  return out;
}

std::vector<PreparedCost> CaseRun::live_costs() const {
  std::vector<PreparedCost> out;
  for (const auto& v : vs)
    if (v.alive()) out.push_back(cost_of(v));
  return out;
}

PrimaryMetric primary_metric(const DeviceBackend& b, TimingMode mode) {
  return b.kind() == DeviceKind::cuda && mode == TimingMode::batched ? PrimaryMetric::device_s : PrimaryMetric::host_s;
}

VariantStatus variant_status(const std::string& prepared_status) {
  if (prepared_status == "ok") return VariantStatus::ok;
  if (prepared_status == "oom") return VariantStatus::oom;
  return VariantStatus::error;
}

void record_failure(VariantState& v, const std::exception& e, DeviceBackend& backend) {
  v.result.status = is_out_of_memory(e) ? VariantStatus::oom : VariantStatus::error;
  v.result.error = first_line(e.what());
  v.runner.reset();
  backend.release_cached_memory();
}

const WorkUnits& units_of(const Case& c, const VariantState& v) { return v.spec->units ? *v.spec->units : c.units; }

std::vector<double> normalised_times(const CaseRun& run, std::size_t i) {
  const double scale = work_amount(units_of(run.c, run.vs[0])) / work_amount(units_of(run.c, run.vs[i]));
  std::vector<double> out(run.vs[i].primary);
  for (auto& t : out) t *= scale;
  return out;
}

}  // namespace optbench::case_run
