#pragma once
// An experiment measured in more than one process (MeasureConfig::processes):
// the first process's cases are the record, written once as each finishes and
// never changed; what each further process recorded for a case is a record of
// its own (experiments[].repeats), written once when that process has it. The
// report joins them by case and comparison (report/load/document.py); nothing here
// estimates anything (harness/two_level.h does, from these).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/case_result.h"

namespace optbench {

// A variant's figures in a further process: its status, median time and
// minor page faults per step (an allocator regime shows there).
struct VariantRepeat {
  std::string name;
  std::string status;  // VariantStatus's spelling, as the child wrote it
  std::optional<double> median_s, minor_faults_per_step;
};

// One comparison of the first process's case in a further process: its ratio,
// interval and rounds, or why it has none.
struct ComparisonRepeat {
  std::string baseline, variant;
  std::optional<double> speedup, ci_low, ci_high;
  std::optional<std::int64_t> rounds;
  std::optional<bool> below_floor;
  std::string reason;  // empty where it has a ratio
};

struct CaseRepeat {
  std::size_t process = 0;  // 0 is the first process
  std::string case_name;
  // The case's status where the process recorded it (CaseStatus), else the
  // process's (ExperimentStatus: not_run, crashed, hung, interrupted, failed).
  std::string status;
  std::string reason;
  bool recorded = false;  // the process recorded the case (variants below)
  std::optional<std::int64_t> rounds;
  // Where the process's time on the case went (the case record's time_s), so
  // a further process's cost is read from what it took, not rebuilt.
  nlohmann::json time_s;
  std::vector<VariantRepeat> variants;
  // One per comparison of the first process's case whose variants both ran
  // in this process (all, where it repeated the whole case), in its order.
  std::vector<ComparisonRepeat> comparisons;
};

// A comparison as a process's case records it: its ratio, interval, rounds and
// floor flag, or (without a ratio) why not. The one reader of a comparison's
// figures in a case record, for the repeats and for the estimate (two_level.h).
ComparisonRepeat comparison_record(const nlohmann::json& comparison);

// What a further process recorded for a case (as its child wrote it), read
// against the first process's record of the same case.
CaseRepeat recorded_repeat(const nlohmann::json& first_case, const nlohmann::json& repeat_case, std::size_t process);

// A further process that recorded nothing for this case: its status and why.
CaseRepeat missing_repeat(const nlohmann::json& first_case, std::size_t process, ExperimentStatus status,
                          const std::string& reason);

nlohmann::json to_json(const CaseRepeat& r);

}  // namespace optbench
