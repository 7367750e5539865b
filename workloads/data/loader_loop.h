#pragma once
// One variant of the dataloader experiment: a training loop fed by LibTorch's
// DataLoader, timed one window at a time.
//
// A step() is one epoch of a dataset that holds exactly `window_batches`
// batches, from a fresh iterator: the window starts with the pipeline empty and
// idle, pays its start-up (time to the first batch, recorded in metrics()), and
// ends when the sampler is exhausted and every batch has been consumed, so the
// workers have nothing left to do and go idle. Nothing is prepared for a window
// while the harness times other variants, which is what made the old one-batch
// samples find their batches ready (30x from one worker thread).
//
// Three loops share that window:
//   train      the loader's batches copied to the device and trained on;
//   data_only  the same loader and copies without training: the most the loop
//              could reach with this loader (its data-only rate);
//   no_loader  training on one batch already on the device: the most the loop
//              could reach with any loader.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/experiment.h"
#include "workloads/synthetic_images.h"
#include "workloads/training/train_step.h"

namespace optbench::workloads {

enum class LoopKind { train, data_only, no_loader };
const char* to_string(LoopKind k);

struct LoaderSettings {
  std::int64_t workers = 0;
  std::int64_t prefetch = 2;  // batches per worker: max_jobs = workers x prefetch
  bool pin = false;           // batches page-locked in the worker, copied non_blocking
};

// What the loop trains and on what.
struct LoopSpec {
  std::string model;  // what `net` builds, for the record
  ImageSpec image;
  std::int64_t batch = 32;
  NetFactory net;
  TrainOptions train;
  DeviceKind device = DeviceKind::cpu;
  // Intra-op threads while any CPU loop is alive (0: leave LibTorch's setting).
  // On a CPU run one thread stands in for the accelerator, so the training step
  // does not spin on the cores the loader's threads need.
  int cpu_train_threads = 0;
};

class LoaderLoop final : public Workload {
 public:
  LoaderLoop(const LoopSpec& spec, LoaderSettings settings, LoopKind kind, std::int64_t window_batches);
  ~LoaderLoop() override;
  void step() override;
  // Per window (medians, the first, cold window left out when there are more):
  // time to the first batch (the pipeline fill) and its share of the window,
  // share of the window waiting for the loader and in the host-to-device copy;
  // the measured preprocessing cost per sample.
  nlohmann::json metrics() override;

  std::int64_t windows() const;
  // Windows in which some sample of the epoch did not arrive exactly once.
  std::int64_t incomplete_windows() const;
  // Samples preprocessed so far, by any thread.
  std::int64_t samples_prepared() const;
  // Whether it trains (train and no_loader loops), and the last step's loss
  // (read from the device); NaN before any step.
  bool trains() const;
  double last_loss() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace optbench::workloads
