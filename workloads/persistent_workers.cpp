// The DataLoader tips table's persistent_workers=True ("keeps workers alive
// across epochs"): what starting the workers anew each epoch costs, in epochs
// per second for short epochs. LibTorch's loader (workers are threads, started
// when a loader is made): a new loader per epoch vs one kept. Python's loader
// (workers are processes, whose start costs far more), run by the Python whose
// torch the build uses, beside it and labelled as Python's: persistent_workers
// False (its default) vs True. The same number of workers, batches and samples
// in every variant; every epoch must deliver every sample.
#include <algorithm>
#include <thread>

#include "harness/build_info.h"
#include "harness/registry.h"
#include "workloads/data/epoch_loops.h"

namespace optbench::workloads {
namespace {

Case epochs_case(std::string name, const EpochSpec& base, bool python) {
  Case c;
  c.name = std::move(name);
  c.params = {{"loader", python ? "Python's torch.utils.data.DataLoader (processes)" : "LibTorch DataLoader (threads)"},
              {"workers", base.workers},
              {"batches_per_epoch", base.batches},
              {"batch", base.batch},
              {"image", base.image.size}};
  c.timing = TimingMode::sync;
  c.units = WorkUnits{0, 0, static_cast<double>(base.batches * base.batch), "samples"};
  c.verify = verify_epochs;
  const std::string py = python_executable();
  auto variant = [&](std::string vname, std::string desc, bool persistent) {
    EpochSpec s = base;
    s.persistent = persistent;
    Variant v{std::move(vname), std::move(desc), [s, python, py]() -> std::unique_ptr<Workload> {
                if (python) return std::make_unique<PythonEpochs>(s, py);
                return std::make_unique<ThreadEpochs>(s);
              }};
    v.params = {{"persistent_workers", persistent}, {"loader", python ? "python" : "libtorch"}};
    if (python) v.runs_elsewhere = kRunsInPythonLoader;
    return v;
  };
  if (python) {
    c.variants = {
        variant("python_new_workers", "persistent_workers=False: worker processes started every epoch", false),
        variant("python_persistent_workers", "persistent_workers=True: worker processes kept", true)};
    // A Python that imports torch, started for each variant: the least such a
    // start took on the CI-like VM (docs/results-history.md).
    c.setup_s = 1.7;
    c.notes = {{"python", py},
               {"label",
                "Python's DataLoader, not optbench's loader: shown beside the LibTorch case because "
                "Python's workers are processes"}};
  } else {
    c.variants = {variant("new_workers", "a new loader each epoch: worker threads started and joined", false),
                  variant("persistent_workers", "one loader kept across epochs: worker threads kept", true)};
  }
  c.notes["sample"] = "one sample = one epoch of " + std::to_string(base.batches) + " batches of " +
                      std::to_string(base.batch) + " images";
  return c;
}

class PersistentWorkers final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {"persistent_workers",
            "DataLoader workers kept across epochs vs started every epoch",
            "persistent_workers=True (one loader kept across epochs)",
            {"persistent_workers"},
            "Short epochs (4 batches of 16 images, real CPU work per sample) through LibTorch's DataLoader with a "
            "new loader (worker threads started and joined) every epoch (baseline) vs one loader kept; beside it, "
            "Python's DataLoader (worker processes) with persistent_workers False vs True, run by the Python whose "
            "torch the build uses. Epochs per second; every epoch must deliver every sample."};
  }

  std::vector<Case> cases(const RunContext&) const override {
    EpochSpec s;
    s.workers = std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, 4);
    return {epochs_case("threads_w" + std::to_string(s.workers), s, false),
            epochs_case("python_processes_w" + std::to_string(s.workers), s, true)};
  }
};

OPTBENCH_REGISTER_EXPERIMENT(PersistentWorkers);

}  // namespace
}  // namespace optbench::workloads
