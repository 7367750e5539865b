#pragma once
// A Python twin: a case's workload as a Python user runs it, in a Python
// process of its own (the build's, python_executable(); forked from this
// process's zygote, twin_zygote.h) driven over a Unix socket, so
// a claim whose mechanism includes Python's interpreter overhead (TorchScript
// against eager Python, a Python loop over an optimizer's tensors) is measured
// where Python users are, beside the C++ case. The Python half is
// workloads/python/step_server.py, found in the source tree as the report is
// (source_dir()); it builds the workload the spec names (its "family": one
// module per family beside it) and answers step, output and quit.
//
// One step() here is one request: inner_steps calls of the workload's step in
// Python, so the pipe's round trip (recorded as pipe_round_trip_us, a few to a
// few tens of microseconds) stays a small share of it. The case's WorkUnits
// count all inner_steps. Timed on the host (TimingMode::sync): the Python side
// synchronises CUDA before it answers. No breakdown: this process's profiler
// cannot see the work (harness/out_of_process.h).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/experiment.h"
#include "harness/out_of_process.h"
#include "workloads/python/python_pipe.h"

namespace optbench::workloads {

class TwinZygote;

// step_server.py in the source tree this binary was built from.
std::string python_step_server();

class PythonTwin final : public Workload, public OutOfProcessWork {
 public:
  // spec: "family", "inner_steps", "device" and the family's own fields;
  // "threads" is added (this process's intra-op threads) where absent. Throws
  // when the Python cannot build the workload, with the last line it printed.
  PythonTwin(const std::string& python, nlohmann::json spec);
  ~PythonTwin() override;
  PythonTwin(const PythonTwin&) = delete;
  PythonTwin& operator=(const PythonTwin&) = delete;

  void step() override;
  // What the Python workload's output() gave, as float32 on the CPU.
  at::Tensor output() override;
  nlohmann::json metrics() override;
  std::string runs_in() const override { return kRunsInPythonTwin; }
  pid_t pid() const { return pipe_->pid(); }

 private:
  [[noreturn]] void failed(const std::string& reply);
  std::string request(const std::string& line);
  TwinZygote* zygote_ = nullptr;  // the process's, which forked this twin
  std::unique_ptr<PythonPipe> pipe_;
  nlohmann::json metrics_ = nlohmann::json::object();
};

}  // namespace optbench::workloads
