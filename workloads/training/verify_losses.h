#pragma once
// Case::verify for training experiments. Each variant's loss trace (a few steps
// from the same fresh weights) is compared with a float64 run of the same steps.
// A training step is ill-conditioned (through BatchNorm, fp32 gradients of a
// fresh ResNet differ from float64 by ~2%), so the bar is the variant's own
// precision tolerance or three times the fp32 baseline's own deviation,
// whichever is larger; both deviations are reported.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "workloads/training/train_step.h"

namespace optbench::workloads {

inline double max_rel_dev(const at::Tensor& a, const at::Tensor& ref) {
  return ((a - ref).abs() / ref.abs().clamp_min(1e-12)).max().item<double>();
}

inline std::string verify_loss_traces(std::vector<Workload*>& w) {
  auto* base = dynamic_cast<TrainStep*>(w.at(0));
  auto* var = dynamic_cast<TrainStep*>(w.at(1));
  if (!base || !var) return "not a training step";
  const auto ref = base->float64_trace();
  const auto b = var->output();
  if (!b.isfinite().all().item<bool>()) return "non-finite loss";
  const double dev_base = max_rel_dev(base->output(), ref), dev_var = max_rel_dev(b, ref);
  const double bar = std::max(var->loss_tolerance(), 3.0 * dev_base);
  if (dev_var <= bar) return "";
  char msg[200];
  std::snprintf(msg, sizeof msg, "loss deviates from float64 by %.3g (baseline: %.3g; allowed %.3g)", dev_var,
                dev_base, bar);
  return msg;
}

}  // namespace optbench::workloads
