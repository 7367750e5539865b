#pragma once
// glibc's malloc moves its mmap and trim thresholds with a process's history: a
// freed mmapped chunk raises them, and whether a step's freed temporaries sit at
// the top of the heap (trimmed, then faulted in again on the next step) depends
// on what was allocated above them. So one step can take thousands of minor page
// faults in one process and none in the next, and the same step's time (and an
// optimization's speedup) differ between the runs of an A/A pair (fused_optimizer's
// in docs/results-history.md).
//
// Every optbench process therefore pins both thresholds at the start, to the
// regime a long-running process settles in (allocations up to glibc's largest
// dynamic mmap threshold come from the heap, and freed memory is kept), and
// passes them on to its children (Python twins, DataLoader workers) through
// GLIBC_TUNABLES. A user's own malloc settings are left alone and recorded, and
// OPTBENCH_MALLOC=default measures glibc's dynamic thresholds as they come.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace optbench {

struct MallocRegime {
  // "optbench": pinned here or by the optbench process that started this one;
  // "user": the environment set malloc tunables, left as they are;
  // "glibc_default": OPTBENCH_MALLOC=default, glibc's dynamic thresholds.
  std::string set_by;
  std::string tunables;  // GLIBC_TUNABLES as this process's children get it ("" if unset)
};

// Call first thing in main, before anything is measured. Idempotent.
const MallocRegime& pin_malloc_regime();
nlohmann::json to_json(const MallocRegime& r);

}  // namespace optbench
