#pragma once
// An experiment measured in more than one process (MeasureConfig::processes):
// the first process's cases are the record, and each further process's timed
// rounds go beside them, per case and per comparison, under "repeats". The
// report puts the between-process spread beside each within-process interval
// from these; nothing here estimates anything.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/case_result.h"

namespace optbench {

// What a further process recorded for one case (as its child wrote it), added
// to the first process's record of the same case: each comparison's speedup
// with its interval and rounds, and the process's own facts (status, rounds,
// each variant's median time and minor page faults per step).
void add_repeat(nlohmann::json& first_case, const nlohmann::json& repeat_case, std::size_t process);

// A further process that recorded nothing for this case: its status (not_run,
// crashed, hung, interrupted, failed) and why.
void add_missing_repeat(nlohmann::json& first_case, std::size_t process, ExperimentStatus status,
                        const std::string& reason);

}  // namespace optbench
