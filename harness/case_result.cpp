#include "harness/case_result.h"

namespace optbench {

const char* to_string(CaseStatus s) {
  switch (s) {
    case CaseStatus::ok:
      return "ok";
    case CaseStatus::skipped:
      return "skipped";
    case CaseStatus::failed:
      return "failed";
    case CaseStatus::interrupted:
      return "interrupted";
    case CaseStatus::not_run:
      return "not_run";
  }
  return "?";
}

const char* to_string(VariantStatus s) {
  switch (s) {
    case VariantStatus::ok:
      return "ok";
    case VariantStatus::oom:
      return "oom";
    case VariantStatus::error:
      return "error";
    case VariantStatus::not_run:
      return "not_run";
  }
  return "?";
}

const char* to_string(RoleInCase r) {
  switch (r) {
    case RoleInCase::baseline:
      return "baseline";
    case RoleInCase::optimized:
      return "optimized";
    case RoleInCase::reference:
      return "reference";
  }
  return "?";
}

const char* to_string(ProcessKind p) { return p == ProcessKind::fresh ? "fresh" : "shared"; }

const char* to_string(PrimaryMetric m) { return m == PrimaryMetric::device_s ? "device_s" : "host_s"; }

const char* to_string(VerificationStatus s) {
  switch (s) {
    case VerificationStatus::passed:
      return "passed";
    case VerificationStatus::failed:
      return "failed";
    case VerificationStatus::not_checked:
      return "not_checked";
  }
  return "?";
}

const char* to_string(BreakdownStatus s) {
  switch (s) {
    case BreakdownStatus::ok:
      return "ok";
    case BreakdownStatus::skipped:
      return "skipped";
    case BreakdownStatus::error:
      return "error";
  }
  return "?";
}

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::running:
      return "running";
    case RunStatus::complete:
      return "complete";
    case RunStatus::interrupted:
      return "interrupted";
  }
  return "?";
}

const char* to_string(ExperimentStatus s) {
  switch (s) {
    case ExperimentStatus::running:
      return "running";
    case ExperimentStatus::ok:
      return "ok";
    case ExperimentStatus::skipped:
      return "skipped";
    case ExperimentStatus::failed:
      return "failed";
    case ExperimentStatus::interrupted:
      return "interrupted";
    case ExperimentStatus::not_run:
      return "not_run";
    case ExperimentStatus::crashed:
      return "crashed";
    case ExperimentStatus::hung:
      return "hung";
  }
  return "?";
}

std::optional<ExperimentStatus> parse_experiment_status(const std::string& s) {
  for (ExperimentStatus x :
       {ExperimentStatus::running, ExperimentStatus::ok, ExperimentStatus::skipped, ExperimentStatus::failed,
        ExperimentStatus::interrupted, ExperimentStatus::not_run, ExperimentStatus::crashed, ExperimentStatus::hung})
    if (s == to_string(x)) return x;
  return std::nullopt;
}

bool is_failure(ExperimentStatus s) {
  return s == ExperimentStatus::failed || s == ExperimentStatus::crashed || s == ExperimentStatus::hung;
}

std::optional<double> VariantResult::cold_first_run_s() const {
  if (cold_first_runs_s.empty()) return std::nullopt;
  return median(cold_first_runs_s);
}

const VariantResult* CaseResult::variant(const std::string& variant_name) const {
  for (const auto& v : variants)
    if (v.name == variant_name) return &v;
  return nullptr;
}

}  // namespace optbench
