#pragma once
// Case::verify for training experiments. Each variant's loss trace (a few steps
// from the same fresh weights) is compared with a float64 run of the same steps.
//
// The first loss is a forward pass from identical weights: well-conditioned, so
// it is always judged against the variant's precision tolerance. The later
// losses follow gradients, and the gradients of a freshly initialised network
// can be ill-conditioned: for ResNet-50 at 32 px on a CPU, fp32 gradients differ
// from float64's by 2% and bf16's by more than 100%, so the traces diverge
// chaotically and their deviations are noise, not precision. The trace is
// therefore judged only where the baseline's own trace keeps within its
// precision's tolerance; the bar is then the variant's tolerance or three times
// the baseline's deviation, whichever is larger. The figures are recorded either way.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "workloads/training/train_step.h"

namespace optbench::workloads {

inline double max_rel_dev(const at::Tensor& a, const at::Tensor& ref) {
  return ((a - ref).abs() / ref.abs().clamp_min(1e-12)).max().item<double>();
}

// ref, base, var: loss traces (float64, on the host); *_tol: each one's
// precision tolerance (TrainStep::loss_tolerance).
inline Verdict judge_loss_traces(const at::Tensor& ref, const at::Tensor& base, const at::Tensor& var, double base_tol,
                                 double var_tol) {
  if (!var.isfinite().all().item<bool>()) return {"non-finite loss"};
  const double first_base = max_rel_dev(base.slice(0, 0, 1), ref.slice(0, 0, 1));
  const double first_var = max_rel_dev(var.slice(0, 0, 1), ref.slice(0, 0, 1));
  const double dev_base = max_rel_dev(base, ref), dev_var = max_rel_dev(var, ref);
  const bool trace_conditioned = dev_base <= base_tol;
  const double first_bar = std::max(var_tol, 3.0 * first_base);
  const double trace_bar = std::max(var_tol, 3.0 * dev_base);
  Verdict v;
  v.details = {{"first_loss_rel_dev", first_var},   {"baseline_first_loss_rel_dev", first_base},
               {"first_loss_allowed", first_bar},   {"trace_rel_dev", dev_var},
               {"baseline_trace_rel_dev", dev_base}, {"trace_judged", trace_conditioned}};
  char msg[240];
  if (first_var > first_bar) {
    std::snprintf(msg, sizeof msg, "first-step loss deviates from float64 by %.3g (baseline: %.3g; allowed %.3g)",
                  first_var, first_base, first_bar);
    v.problem = msg;
  } else if (trace_conditioned) {
    v.details["trace_allowed"] = trace_bar;
    if (dev_var > trace_bar) {
      std::snprintf(msg, sizeof msg, "loss trace deviates from float64 by %.3g (baseline: %.3g; allowed %.3g)",
                    dev_var, dev_base, trace_bar);
      v.problem = msg;
    }
  } else {
    std::snprintf(msg, sizeof msg,
                  "trace not judged: the baseline's own trace deviates from float64 by %.3g, beyond its tolerance "
                  "%.3g (ill-conditioned training steps); first step judged",
                  dev_base, base_tol);
    v.details["note"] = msg;
  }
  return v;
}

inline Verdict verify_loss_traces(std::vector<Workload*>& w) {
  auto* base = dynamic_cast<TrainStep*>(w.at(0));
  auto* var = dynamic_cast<TrainStep*>(w.at(1));
  if (!base || !var) return {"not a training step"};
  const auto ref = base->float64_trace();
  return judge_loss_traces(ref, base->output(), var->output(), base->loss_tolerance(), var->loss_tolerance());
}

}  // namespace optbench::workloads
