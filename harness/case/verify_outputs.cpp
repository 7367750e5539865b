// Verification: each variant's outputs against the baseline's, untimed, after
// the rounds (and after cold processes and profiled windows). Isolated variants
// are rebuilt here for it, after their workers have gone (so their memory is free).
#include "harness/case/phases.h"
#include "harness/device.h"
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

// Out of memory while checking: the variant is recorded `oom` (as in its timing;
// the allocation is what failed, not its numbers) and its comparison is not
// checked, so it carries no verdict; never "failed", which would say its numbers
// are wrong.
Verification out_of_memory(VariantState& v, const std::exception& e, DeviceBackend& backend) {
  v.result.status = VariantStatus::oom;
  v.result.error = "out of memory while verifying its outputs: " + first_line(e.what());
  backend.release_cached_memory();
  Verification out;
  out.message = v.result.error;
  return out;
}

// Its checks; an out-of-memory error is rethrown for the caller to record.
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
    if (is_out_of_memory(e)) throw;
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
        out[i] = is_out_of_memory(e) ? out_of_memory(run.vs[i], e, run.backend)
                                     : failed_check(std::string("verification raised: ") + first_line(e.what()));
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
  for (std::size_t i = 1; i < run.vs.size(); ++i) {
    if (!run.vs[i].alive()) continue;
    try {
      checks[i] = verify_pair(run.c, run.vs[0].runner->workload(), run.vs[i].runner->workload());
    } catch (const std::exception& e) {  // out of memory: verify_pair keeps every other error
      checks[i] = out_of_memory(run.vs[i], e, run.backend);
    }
  }
  return checks;
}

}  // namespace optbench::case_run
