// Verification: each variant's outputs against the baseline's, untimed, after
// the rounds (and after cold processes and profiled windows). Isolated variants
// are rebuilt here for it, after their workers have gone (so their memory is free).
#include "harness/case/phases.h"
#include "harness/seeding.h"
#include "harness/verify.h"

namespace optbench::case_run {
namespace {

Verification failed_check(const std::string& message) {
  Verification v;
  v.status = VerificationStatus::failed;
  v.message = message;
  return v;
}

Verification verify_pair(const Case& c, Workload* base, Workload* var) {
  Verification out;
  out.status = VerificationStatus::passed;
  try {
    if (c.tolerance) {
      const OutputComparison cmp = compare_outputs(base->output(), var->output(), *c.tolerance);
      out.status = cmp.passed ? VerificationStatus::passed : VerificationStatus::failed;
      out.tolerance = ToleranceCheck{cmp.max_abs_err, cmp.max_rel_err, c.tolerance->rtol, c.tolerance->atol};
      out.message = cmp.message;
    }
    if (c.verify) {
      std::vector<Workload*> pair = {base, var};
      const CheckResult r = c.verify(pair);
      out.details = r.details;
      if (!r.problem.empty()) {
        out.status = VerificationStatus::failed;
        out.message = r.problem;
      }
    }
  } catch (const std::exception& e) {
    return failed_check(std::string("verification raised: ") + first_line(e.what()));
  }
  return out;
}

// Variants timed in worker processes: the baseline and each variant built
// again here, one step each, then the case's checks.
std::vector<Verification> verify_rebuilt(CaseRun& run) {
  std::vector<Verification> out(run.vs.size());
  try {
    auto base = build_workload(run.c.variants[0]);
    base->step();
    for (std::size_t i = 1; i < run.vs.size(); ++i) {
      if (!run.vs[i].prepared || run.vs[i].result.status != VariantStatus::ok) continue;
      try {
        auto var = build_workload(run.c.variants[i]);
        var->step();
        out[i] = verify_pair(run.c, base.get(), var.get());
      } catch (const std::exception& e) {
        out[i] = failed_check(std::string("verification raised: ") + first_line(e.what()));
      }
    }
  } catch (const std::exception& e) {
    for (std::size_t i = 1; i < run.vs.size(); ++i) {
      out[i] = Verification{};
      out[i].message = "baseline rebuilt for verification failed: " + first_line(e.what());
    }
  }
  run.backend.release_cached_memory();
  return out;
}

}  // namespace

std::vector<Verification> verify_variants(CaseRun& run, double cost_s) {
  std::vector<Verification> checks(run.vs.size());
  if (!run.checks_outputs() || run.stop_requested) return checks;
  if (auto why = run.gate.refuse_verification(cost_s); !why.empty()) {
    for (auto& v : checks) v.message = why;
    return checks;
  }
  if (!run.vs[0].alive()) return checks;
  if (run.isolate) {
    for (auto& v : run.vs) v.runner.reset();
    return verify_rebuilt(run);
  }
  for (std::size_t i = 1; i < run.vs.size(); ++i)
    if (run.vs[i].alive())
      checks[i] = verify_pair(run.c, run.vs[0].runner->workload(), run.vs[i].runner->workload());
  return checks;
}

}  // namespace optbench::case_run
