#pragma once
// The one writer of a case's result into the results file: the keys of
// harness/results.schema.json's "case", "variant" and "comparison".
#include <nlohmann/json.hpp>

#include "harness/case_result.h"

namespace optbench {

nlohmann::json to_json(const CaseResult& r);

}  // namespace optbench
