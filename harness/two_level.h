#pragma once
// The one estimate of a comparison (results: experiments[].estimates), made once
// here and read by every part of the report. The estimand is what a fresh
// process gets: a process's allocator history, page placement and clocks move a
// ratio more than its own rounds scatter, so with ratios from K >= 2 processes
// the process is the unit: the geometric mean of the processes' ratios with
// Student's t interval on their mean log (K - 1 degrees of freedom). Each
// process's ratio already averages its own rounds, so their spread carries both
// levels of noise (the two-level estimate of a balanced random-effects design).
// With one process, the rounds are the unit: its median of per-round ratios and
// order-statistic interval (harness/stats.h), null below the rounds floor.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/process_repeats.h"

namespace optbench {

// Student's t quantile, p in (0, 1), df >= 1.
double student_t_quantile(double p, double df);

struct ProcessInterval {
  double estimate = 0, low = 0, high = 0;
  std::size_t processes = 0;
};

// Geometric mean and t interval of positive ratios; none with fewer than two.
std::optional<ProcessInterval> across_processes(const std::vector<double>& ratios, double confidence);

// One comparison across the processes of its experiment: the first process's
// figures (its case record) and each further process's ratio (its repeats).
struct ComparisonAcross {
  std::string case_name, baseline, variant;
  std::optional<double> speedup, ci_low, ci_high;  // the first process's
  bool below_floor = false;
  std::optional<std::int64_t> rounds;
  double confidence = 0;
  std::vector<double> further;  // positive finite ratios of the further processes, in order

  // Its ratio in each process that has one, the first's first; empty without
  // a ratio in the first process (a further process alone says nothing).
  std::vector<double> ratios() const;
};

// Every comparison of an experiment's first-process cases, with what its
// further processes recorded for it.
std::vector<ComparisonAcross> comparisons_across(const nlohmann::json& first_cases,
                                                 const std::vector<CaseRepeat>& repeats, double confidence);

// The comparison's one estimate (results: experiments[].estimates).
struct EstimateRecord {
  std::string case_name, baseline, variant;
  double speedup = 0;
  std::optional<double> ci_low, ci_high;  // none below the rounds floor (one process)
  double confidence = 0;
  bool across_processes = false;  // unit: "process", else "round"
  std::optional<std::int64_t> n, df;
};

// None without a ratio in the first process.
std::optional<EstimateRecord> estimate_of(const ComparisonAcross& c);

nlohmann::json to_json(const EstimateRecord& e);

// The widest relative interval, (high - low) / estimate, over the experiment's
// comparisons with ratios from two or more processes; 0 where none has.
double widest_process_interval(const std::vector<ComparisonAcross>& comparisons);

// Whether any comparison of the experiment has a ratio (from its first process):
// without one, further processes have nothing to add.
bool has_ratios(const std::vector<ComparisonAcross>& comparisons);

}  // namespace optbench
