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

}  // namespace optbench
