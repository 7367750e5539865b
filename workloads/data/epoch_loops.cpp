#include "workloads/data/epoch_loops.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "workloads/python/python_pipe.h"

namespace optbench::workloads {
namespace {

using ThreadLoader = torch::data::StatelessDataLoader<torch::data::datasets::MapDataset<SyntheticImages, StackMaybePin>,
                                                      torch::data::samplers::RandomSampler>;

std::unique_ptr<ThreadLoader> make_loader(const EpochSpec& s) {
  const std::int64_t n = s.batches * s.batch;
  return torch::data::make_data_loader(SyntheticImages(n, s.image).map(StackMaybePin(false)),
                                       torch::data::samplers::RandomSampler(n),
                                       loader_options(s.batch, s.workers, /*prefetch=*/2));
}

// Python's loader over images that cost CPU work per sample (a seeded random
// image, a crop, a flip for odd indices, normalisation), one epoch per "e" line
// on stdin, answered with the samples it delivered.
constexpr const char* kScript = R"PY(
import os
import sys
# Not the working directory (python -c puts it first): a select.py there would
# shadow the standard library's and stop the DataLoader's workers.
sys.path[:] = [p for p in sys.path if p not in ("", ".")]
import torch
from torch.utils.data import DataLoader, Dataset

workers, persistent, batches, batch, size, crop = map(int, sys.argv[1:7])
torch.set_num_threads(1)

class Images(Dataset):
    def __len__(self):
        return batches * batch
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.rand(3, size, size, generator=g)
        o = (size - crop) // 2
        x = x[:, o:o + crop, o:o + crop]
        if i % 2:
            x = x.flip(2)
        return (x - 0.5) / 0.25, i % 10

loader = DataLoader(Images(), batch_size=batch, shuffle=True, num_workers=workers,
                    persistent_workers=bool(persistent) and workers > 0)
print("ready", torch.__version__, flush=True)
for line in sys.stdin:
    if line.strip() != "e":
        break
    n = 0
    for x, y in loader:
        n += int(y.numel())
    print("ok", n, flush=True)
# Quit: end the kept workers, then skip the interpreter's finalization (half a
# second with torch imported, one interpreter after another at the end of the
# case), which no budget estimate counts.
it = getattr(loader, "_iterator", None)
if it is not None:
    it._shutdown_workers()
os._exit(0)
)PY";

}  // namespace

struct ThreadEpochs::Kept {
  std::unique_ptr<ThreadLoader> loader;
};

ThreadEpochs::ThreadEpochs(EpochSpec s) : spec_(s) {
  if (spec_.persistent) kept_ = std::make_unique<Kept>(Kept{make_loader(spec_)});
}

ThreadEpochs::~ThreadEpochs() = default;

void ThreadEpochs::step() {
  // A new loader starts its worker threads, and destroying it joins them: the
  // per-epoch cost that persistent workers avoid.
  std::unique_ptr<ThreadLoader> fresh;
  ThreadLoader& l = kept_ ? *kept_->loader : *(fresh = make_loader(spec_));
  std::int64_t n = 0;
  for (auto& b : l) n += b.target.size(0);
  fresh.reset();
  ++epochs_;
  if (n != spec_.batches * spec_.batch) ++incomplete_;
}

nlohmann::json ThreadEpochs::metrics() {
  return {{"loader", "LibTorch (worker threads)"}, {"epochs", epochs_}, {"incomplete_epochs", incomplete_}};
}

PythonEpochs::PythonEpochs(EpochSpec s, const std::string& python) : spec_(s) {
  try {
    pipe_ = std::make_unique<PythonPipe>(
        std::vector<std::string>{python, "-c", kScript, std::to_string(s.workers), std::to_string(s.persistent ? 1 : 0),
                                 std::to_string(s.batches), std::to_string(s.batch), std::to_string(s.image.size),
                                 std::to_string(s.image.crop)},
        std::nullopt, "the Python loader process", "q");
    const std::string line = pipe_->wait_for("ready");
    torch_version_ = line.size() > 6 ? line.substr(6) : "";
  } catch (const std::exception& e) {
    throw std::runtime_error("Python's DataLoader did not start (" + python + "): " + e.what());
  }
}

PythonEpochs::~PythonEpochs() = default;

void PythonEpochs::step() {
  const std::string reply = pipe_->request("e");
  ++epochs_;
  long long n = -1;
  if (std::sscanf(reply.c_str(), "ok %lld", &n) != 1) throw std::runtime_error("Python's DataLoader: " + reply);
  if (n != spec_.batches * spec_.batch) ++incomplete_;
}

nlohmann::json PythonEpochs::metrics() {
  return {{"loader", "Python's torch.utils.data.DataLoader (worker processes)"},
          {"python_torch", torch_version_},
          {"epochs", epochs_},
          {"incomplete_epochs", incomplete_}};
}

CheckResult verify_epochs(std::vector<Workload*>& ws) {
  for (Workload* w : ws) {
    std::int64_t bad = -1, all = 0;
    if (auto* t = dynamic_cast<ThreadEpochs*>(w)) bad = t->incomplete_epochs(), all = t->epochs();
    if (auto* p = dynamic_cast<PythonEpochs*>(w)) bad = p->incomplete_epochs(), all = p->epochs();
    if (bad < 0) return {"not an epoch loop"};
    if (all == 0) return {"no epoch was run"};
    if (bad > 0) return {std::to_string(bad) + " of " + std::to_string(all) + " epochs did not deliver every sample"};
  }
  return {};
}

}  // namespace optbench::workloads
