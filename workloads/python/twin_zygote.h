#pragma once
// One Python per optbench process that has imported torch and forks the Python
// twins from there (step_server.py --zygote): a twin's start costs a fork and
// its workload's build instead of an interpreter importing torch (2-4 s on the
// 2-core VM, which a further process paid again for every variant). Each twin
// is still a process of its own, connected over a Unix socket. Started with the
// first twin and kept until this process ends; one that died is started again.
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "workloads/python/python_pipe.h"

namespace optbench::workloads {

class TwinZygote {
 public:
  // The zygote of this process for `python`, started with `env` the first time.
  static TwinZygote& get(const std::string& python, const std::vector<std::string>& env);

  // A new twin of `family` (step_server.py's FAMILIES), connected: its pipe
  // serves step_server.py's twin protocol. Throws, with the zygote's or the
  // twin's last words, when it cannot.
  std::unique_ptr<PythonPipe> fork_twin(const std::string& family, const std::string& what);
  // How twin `pid` ended ("exited 1", "killed by signal 9 (SIGKILL)"), or
  // "running"; "" when the zygote cannot say.
  std::string status(pid_t pid);

 private:
  TwinZygote(std::string python, std::vector<std::string> env);
  PythonPipe& pipe();  // started (again) where it is not running
  std::string python_;
  std::vector<std::string> env_;
  std::unique_ptr<PythonPipe> pipe_;
  unsigned forked_ = 0;
};

}  // namespace optbench::workloads
