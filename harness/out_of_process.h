#pragma once
// A workload whose steps run in another process (a Python twin,
// workloads/python/python_twin.h; Python's DataLoader,
// workloads/data/epoch_loops.h): this process's profiler sees none of its
// work, so no breakdown window is taken of it (an empty window would read as
// a step spent idle).
#include <string>

namespace optbench {

class OutOfProcessWork {
 public:
  virtual ~OutOfProcessWork() = default;
  // Where the work runs, for the breakdown's skip reason ("a Python process").
  virtual std::string runs_in() const = 0;
};

// The breakdown's skip reason for work that runs in `runs_in`.
inline std::string not_profiled_here(const std::string& runs_in) {
  return "its work runs in " + runs_in + ", which this process's profiler cannot see";
}

// Where the work of the two kinds above runs (Variant::runs_elsewhere, runs_in()).
inline const char* const kRunsInPythonTwin = "a Python process of its own";
inline const char* const kRunsInPythonLoader = "a Python process of its own (Python's DataLoader)";

}  // namespace optbench
