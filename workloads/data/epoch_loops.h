#pragma once
// The persistent_workers experiment's workloads: one short epoch per step().
//   ThreadEpochs  LibTorch's DataLoader (workers are threads, started when the
//                 loader is made, joined when it is destroyed): a new loader
//                 per epoch, or one kept across epochs.
//   PythonEpochs  Python's torch.utils.data.DataLoader (workers are processes)
//                 in a Python process of its own, driven over a pipe: with
//                 persistent_workers False (workers started and stopped every
//                 epoch, Python's default) or True.
// Both count the samples each epoch delivered, for verification.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

#include "harness/experiment.h"
#include "harness/out_of_process.h"
#include "workloads/python/python_pipe.h"
#include "workloads/synthetic_images.h"

namespace optbench::workloads {

struct EpochSpec {
  std::int64_t workers = 2, batches = 4, batch = 16;
  ImageSpec image{64, 56, 10};
  bool persistent = false;
};

class ThreadEpochs final : public Workload {
 public:
  explicit ThreadEpochs(EpochSpec s);
  ~ThreadEpochs() override;
  void step() override;
  nlohmann::json metrics() override;
  std::int64_t epochs() const { return epochs_; }
  std::int64_t incomplete_epochs() const { return incomplete_; }

 private:
  struct Kept;
  EpochSpec spec_;
  std::unique_ptr<Kept> kept_;  // the persistent loader
  std::int64_t epochs_ = 0, incomplete_ = 0;
};

// Throws when the Python cannot start the loader (no torch, an error in it),
// with the last lines it printed.
class PythonEpochs final : public Workload, public OutOfProcessWork {
 public:
  PythonEpochs(EpochSpec s, const std::string& python);
  ~PythonEpochs() override;
  void step() override;
  nlohmann::json metrics() override;
  // Its epochs (the loop and the worker processes) run in the Python process.
  std::string runs_in() const override { return kRunsInPythonLoader; }
  std::int64_t epochs() const { return epochs_; }
  std::int64_t incomplete_epochs() const { return incomplete_; }

 private:
  EpochSpec spec_;
  std::unique_ptr<PythonPipe> pipe_;
  std::string torch_version_;
  std::int64_t epochs_ = 0, incomplete_ = 0;
};

// Every epoch of every variant delivered all its samples (ThreadEpochs or PythonEpochs).
CheckResult verify_epochs(std::vector<Workload*>& ws);

}  // namespace optbench::workloads
