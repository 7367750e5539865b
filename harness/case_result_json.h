#pragma once
// The one writer of a case's result into the results file: the keys of
// harness/results.schema.json's "case", "variant" and "comparison".
#include <nlohmann/json.hpp>

#include "harness/case_result.h"

namespace optbench {

nlohmann::json to_json(const CaseResult& r);

// A variant's "breakdown" (its status, and its figures or why it has none), and
// the same read back: it crosses a worker's pipe (harness/isolation/) as this.
nlohmann::json to_json(const BreakdownRecord& b);
BreakdownRecord breakdown_record_from_json(const nlohmann::json& j);

}  // namespace optbench
