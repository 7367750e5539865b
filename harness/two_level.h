#pragma once
// The one estimate of a comparison (results: comparisons[].estimate), made once
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
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace optbench {

// Student's t quantile, p in (0, 1), df >= 1.
double student_t_quantile(double p, double df);

struct ProcessInterval {
  double estimate = 0, low = 0, high = 0;
  std::size_t processes = 0;
};

// Geometric mean and t interval of positive ratios; none with fewer than two.
std::optional<ProcessInterval> across_processes(const std::vector<double>& ratios, double confidence);

// Each comparison's speedup in each process: its own figure, then its repeats'
// (harness/process_repeats.h), positive finite ones only.
std::vector<double> process_ratios(const nlohmann::json& comparison);

// The comparison's estimate record (null without a ratio in the first process).
nlohmann::json estimate_record(const nlohmann::json& comparison, double confidence);

// Writes comparisons[].estimate into every case of an experiment.
void add_estimates(nlohmann::json& cases, double confidence);

// The widest relative interval, (high - low) / estimate, over the experiment's
// comparisons with ratios from two or more processes; 0 where none has.
double widest_process_interval(const nlohmann::json& cases, double confidence);

// Whether any comparison of the experiment has a ratio (from its first process):
// without one, further processes have nothing to add.
bool has_ratios(const nlohmann::json& cases);

}  // namespace optbench
