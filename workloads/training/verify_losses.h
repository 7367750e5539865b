#pragma once
// Case::verify for training experiments. Each variant runs a few steps from the
// same fresh weights; its first step's logits and its losses are compared with
// a float64 run of the same steps.
//
// Conditioning decides what can be judged. A fresh network can be
// ill-conditioned: for ResNet-50 at 32 px on a CPU (BatchNorm over 8 values per
// channel in the last stage), fp32 logits differ from float64's by 1e-4, bf16's
// by 65%, fp32 gradients by 2% and bf16's by more than 100%, so traces diverge
// chaotically and their deviations are noise, not precision. Hence:
// - the first loss (a forward pass from identical weights) is always judged
//   against the variant's precision tolerance (3x the baseline's deviation
//   where that is larger);
// - the first logits are judged where the forward pass is well-conditioned at
//   the variant's precision: the baseline's deviation over its unit roundoff
//   estimates the condition number kappa, and a variant expected to deviate by
//   kappa x its own roundoff >= 10% cannot be told from noise. The bar is 4x that
//   expectation or the precision tolerance, whichever is larger. At init a
//   loss sits near ln(classes) whatever the logits are, so this is the check
//   that sees a forward pass computing something else;
// - the later losses are judged where the baseline's own trace stays within
//   its precision's tolerance (bar: the variant's tolerance or 3x the baseline's
//   deviation);
// - always, the semantic check, which conditioning cannot excuse: up to
//   kFitSteps Adam steps on one fixed batch from the same fresh weights. Its
//   progress is the mean loss after the first update against the first loss
//   (the mean, not the last: a small model memorises one batch within 8 steps,
//   and a broken one can get there too, only later). It must lower the loss by
//   kFitMinDrop for baseline and variant alike, and the variant's mean must
//   lie within kFitBand of the baseline's drop from the baseline's. A stale
//   weight cast, an optimizer step skipped or taken on scaled gradients fails
//   it whatever the precision. The baseline's fit ends once its mean has
//   fallen by kFitClearDrop (after at least TrainStep::kFitMinUpdates), and
//   every variant runs as many updates: once a model has learned its batch
//   (ResNet-50 at 32 px on a CPU within 2 updates, the batch sweep's net in 1)
//   more steps add cost, and a variant that learns slower is further behind
//   early than late. Updates the GradScaler skips are not counted (the batch
//   runs again); a variant whose every update is skipped fails.
// Every figure is recorded in the check result's details, judged or not, and
// details.judged lists what was judged.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "workloads/training/train_step.h"

namespace optbench::workloads {

inline double max_rel_dev(const at::Tensor& a, const at::Tensor& ref) {
  return ((a - ref).abs() / ref.abs().clamp_min(1e-12)).max().item<double>();
}

// Norm-wise: single logits near zero would make an elementwise ratio meaningless.
inline double norm_rel_dev(const at::Tensor& a, const at::Tensor& ref) {
  return ((a - ref).norm() / ref.norm().clamp_min(1e-300)).item<double>();
}

// One run's record: losses of the trace, its first step's logits (float64 on the
// host), and the precision it ran in. The float64 reference needs only the two tensors.
struct TrainRecord {
  at::Tensor losses = {}, logits = {};
  double tolerance = 0, unit_roundoff = 0;
  at::Tensor fit = {};                     // losses of the fixed-batch fit (TrainStep::fit_losses); undefined: not run
  int fit_skipped = 0, trace_skipped = 0;  // steps whose update the GradScaler skipped
};

inline TrainRecord record_of(TrainStep& t, at::Tensor fit) {
  return {t.output(),     t.first_logits(),        t.loss_tolerance(),       t.unit_roundoff(),
          std::move(fit), t.fit_skipped_updates(), t.trace_skipped_updates()};
}

inline constexpr double kUnjudgeableForwardDev = 0.1;
// The fit's bars, from the CPU (no GPU was at hand; README, Verification): the
// baselines' mean loss fell by 0.044 (a small conv net, tests/test_planted_faults.cpp)
// to 0.93 (ResNet-50 at 32 px), and correct variants landed within 0.01 of
// their baseline's drop; a stale autocast cache lands 0.67 away, a skipped or
// never-taken optimizer step 1.0.
inline constexpr double kFitMinDrop = 0.02, kFitBand = 0.25;
// Where the baseline's fit may end early: half its first loss gone on average
// (25x kFitMinDrop), the batch learned. The early steps tell more: on a net
// that learns its batch in one step (tests/test_planted_faults.cpp) a stale
// autocast cache lagged the baseline by 0.42 of its drop after 1 update, 0.27
// after 2 and 0.07, inside kFitBand, after 8.
inline constexpr double kFitClearDrop = 0.5;

inline CheckResult judge_training(const TrainRecord& ref, const TrainRecord& base, const TrainRecord& var) {
  if (!var.losses.isfinite().all().item<bool>()) return {"non-finite loss"};
  // Updates the GradScaler skips are run again (TrainStep::run_fresh), up to a
  // limit: a run that hit it has fewer losses than it was asked for. The
  // baseline can be the one (an AMP fp16 baseline, as in cudnn_benchmark).
  for (const auto* r : {&base, &var}) {
    const bool short_trace = r->losses.numel() < ref.losses.numel();
    if (short_trace || (r == &var && base.fit.defined() && var.fit.defined() && var.fit.numel() < base.fit.numel())) {
      CheckResult v{std::string("the GradScaler skipped every update it was given (") +
                    std::to_string(short_trace ? r->trace_skipped : r->fit_skipped) + " in a row): the " +
                    (r == &base ? "baseline" : "variant") + " does not train"};
      v.details["trace_skipped_updates"] = var.trace_skipped;
      v.details["fit_skipped_updates"] = var.fit_skipped;
      v.details["baseline_trace_skipped_updates"] = base.trace_skipped;
      return v;
    }
  }
  CheckResult v;
  std::vector<std::string> notes, judged;
  char msg[256];
  // One quantity: its deviations are recorded; judged, its bar is, and
  // exceeding it is the result's (first) problem; not judged, why_not is noted.
  auto judge = [&](const std::string& key, const char* what, double dev, double dev_base, bool is_judged, double bar,
                   const std::string& why_not) {
    v.details[key + "_rel_dev"] = dev;
    v.details["baseline_" + key + "_rel_dev"] = dev_base;
    v.details[key + "_judged"] = is_judged;
    if (!is_judged) {
      notes.push_back(why_not);
      return;
    }
    judged.push_back(key);
    v.details[key + "_allowed"] = bar;
    if (dev > bar && v.problem.empty()) {
      std::snprintf(msg, sizeof msg, "%s deviates from float64 by %.3g (baseline: %.3g; allowed %.3g)", what, dev,
                    dev_base, bar);
      v.problem = msg;
    }
  };

  // First loss: always judged.
  const double first_base = max_rel_dev(base.losses.slice(0, 0, 1), ref.losses.slice(0, 0, 1));
  const double first_var = max_rel_dev(var.losses.slice(0, 0, 1), ref.losses.slice(0, 0, 1));
  judge("first_loss", "first-step loss", first_var, first_base, true, std::max(var.tolerance, 3.0 * first_base), "");

  // First logits.
  if (ref.logits.defined() && base.logits.defined() && var.logits.defined()) {
    // The samples all three have (a larger batch of the sweep has more).
    const auto k = std::min({ref.logits.size(0), base.logits.size(0), var.logits.size(0)});
    const auto r = ref.logits.slice(0, 0, k);
    const double lb = norm_rel_dev(base.logits.slice(0, 0, k), r), lv = norm_rel_dev(var.logits.slice(0, 0, k), r);
    const double kappa = std::max(1.0, lb / base.unit_roundoff);
    const double expected = kappa * var.unit_roundoff;
    v.details["condition_estimate"] = kappa;
    std::snprintf(msg, sizeof msg,
                  "logits not judged: the forward pass is ill-conditioned at this precision (the baseline's "
                  "logits deviate by %.3g; expected deviation %.3g)",
                  lb, expected);
    judge("first_logits", "first-step logits", lv, lb, expected < kUnjudgeableForwardDev,
          std::max(var.tolerance, 4.0 * expected), msg);
  }

  // The trace.
  v.details["trace_skipped_updates"] = var.trace_skipped;
  const double dev_base = max_rel_dev(base.losses, ref.losses), dev_var = max_rel_dev(var.losses, ref.losses);
  std::snprintf(msg, sizeof msg,
                "trace not judged: the baseline's own trace deviates from float64 by %.3g, beyond its tolerance "
                "%.3g (ill-conditioned training steps)",
                dev_base, base.tolerance);
  judge("trace", "loss trace", dev_var, dev_base, dev_base <= base.tolerance, std::max(var.tolerance, 3.0 * dev_base),
        msg);

  // The fit on one fixed batch: judged for every variant that has one.
  if (base.fit.defined() && var.fit.defined() && base.fit.numel() > 1 && var.fit.numel() > 1) {
    // The steps both have (the variant runs as many as the baseline did).
    const auto n = std::min(base.fit.numel(), var.fit.numel());
    const double b0 = base.fit[0].item<double>(), bk = base.fit.slice(0, 1, n).mean().item<double>();
    const double v0 = var.fit[0].item<double>(), vk = var.fit.slice(0, 1, n).mean().item<double>();
    const double drop_b = 1 - bk / b0, drop_v = 1 - vk / v0;
    const double gap = std::abs(vk - bk) / std::max(b0 - bk, 1e-12);
    v.details["fit_steps"] = n - 1;
    v.details["fit_clear_drop"] = kFitClearDrop;
    v.details["fit_skipped_updates"] = var.fit_skipped;
    v.details["fit_loss_drop"] = drop_v;
    v.details["baseline_fit_loss_drop"] = drop_b;
    v.details["fit_gap_of_baseline_drop"] = gap;
    v.details["fit_min_drop"] = kFitMinDrop;
    v.details["fit_band"] = kFitBand;
    v.details["fit_judged"] = true;
    judged.push_back("fit");
    std::string problem;
    const auto steps = std::to_string(n - 1);
    if (!var.fit.isfinite().all().item<bool>()) {
      problem = "non-finite loss while fitting one batch";
    } else if (!(drop_b >= kFitMinDrop)) {
      std::snprintf(msg, sizeof msg,
                    "the baseline's loss fell by a mean of %.3g over %s steps on one batch (at "
                    "least %.3g required): it does not learn",
                    drop_b, steps.c_str(), kFitMinDrop);
      problem = msg;
    } else if (!(drop_v >= kFitMinDrop)) {
      std::snprintf(msg, sizeof msg,
                    "the loss fell by a mean of %.3g over %s steps on one batch (at least %.3g "
                    "required; baseline %.3g): the variant does not learn",
                    drop_v, steps.c_str(), kFitMinDrop, drop_b);
      problem = msg;
    } else if (!(gap <= kFitBand)) {
      std::snprintf(msg, sizeof msg,
                    "over %s steps on one batch the mean loss is %.4g against the baseline's "
                    "%.4g: %.3g of the baseline's drop apart (allowed %.3g)",
                    steps.c_str(), vk, bk, gap, kFitBand);
      problem = msg;
    }
    if (!problem.empty() && v.problem.empty()) v.problem = problem;
  } else {
    v.details["fit_judged"] = false;
    notes.push_back("fit not judged: no fixed-batch fit was run");
  }

  v.details["judged"] = judged;
  if (!notes.empty()) {
    std::string all;
    for (const auto& n : notes) all += (all.empty() ? "" : "; ") + n;
    v.details["note"] = all;
  }
  return v;
}

inline CheckResult verify_loss_traces(std::vector<Workload*>& w) {
  auto* base = dynamic_cast<TrainStep*>(w.at(0));
  auto* var = dynamic_cast<TrainStep*>(w.at(1));
  if (!base || !var) return {"not a training step"};
  const TrainRecord ref{base->float64_trace(), base->float64_first_logits()};
  // The baseline's fit first: it decides how many steps the variant's takes.
  TrainRecord b = record_of(*base, base->fit_losses(TrainStep::kFitSteps, kFitClearDrop));
  TrainRecord v = record_of(*var, var->fit_losses(static_cast<int>(b.fit.numel()) - 1));
  return judge_training(ref, b, v);
}

}  // namespace optbench::workloads
