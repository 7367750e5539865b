#pragma once
// The names a results file uses for what the profiler sorts a window's time into
// (profiling/categories.h) and what it counts (profiling/counters.h), printed by
// `optbench vocabulary`: the report's labels for them (report/explanation/why.py,
// report/explanation/why_counters.py) are checked against it (report/tests/test_vocabulary.py).
#include <nlohmann/json.hpp>

namespace optbench {

nlohmann::json vocabulary();

}  // namespace optbench
