#pragma once
// The phases of one case, in the order run_case (harness/case_runner.cpp) runs
// them; each fills in its part of the run's state or result.
#include <vector>

#include "harness/case/case_run.h"
#include "harness/case_result.h"

namespace optbench::case_run {

// The case's own facts, before anything runs.
CaseResult describe_case(const Case& c, const DeviceBackend& backend);
// Builds each variant, takes its first step and warms it up (prepare.cpp).
void prepare_variants(CaseRun& run);
// Samples the variants interleaved until the stopping rule holds (or the budget
// refuses the rounds floor), then collects each workload's own figures
// (sample_rounds.cpp).
void sample_rounds(CaseRun& run);
// The profiling process: each live variant's median step as the first process
// timed it (CaseLimits::timed_step_s), in place of rounds (sample_rounds.cpp).
void take_reference_steps(CaseRun& run);
// Case::cold_first_step: more fresh processes per variant (cold_first_steps.cpp).
void take_cold_first_steps(CaseRun& run, double reserve_s);
// A profiled window per variant (breakdown_windows.cpp).
void take_breakdown_windows(CaseRun& run, double reserve_s);
// Each variant's outputs against the baseline's (verify_outputs.cpp); [0] unused.
std::vector<Verification> verify_variants(CaseRun& run, double cost_s);
// Each variant's speedup over the baseline, with its verification (compare.cpp).
std::vector<Comparison> compare_variants(const CaseRun& run, const std::vector<Verification>& checks);
// The variants' records, summaries included (summarise.cpp).
std::vector<VariantResult> variant_results(CaseRun& run);
// The case's status and, where it did not run whole, why (summarise.cpp).
void settle_status(const CaseRun& run, CaseResult& out);
// Case::derive's figures; an exception is recorded in their place (summarise.cpp).
void derive_figures(const Case& c, CaseResult& out);
// Where the case's wall time went (summarise.cpp).
TimeSplit time_split(const CaseRun& run, const CaseResult& out, double verification_s, double profiling_s,
                     double cold_s);

}  // namespace optbench::case_run
