// The training check on synthetic traces: a first step off by more than its
// precision fails wherever the rest goes; the trace is judged only where the
// baseline itself tracks float64 (an ill-conditioned trace's deviations are
// noise: on a fresh ResNet-50 at 32 px, fp32 and fp32 channels_last left float64
// by 0.4%-8% depending on the labels, which made the old check fail at random).
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <limits>

#include "workloads/training/verify_losses.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

at::Tensor trace(double a, double b, double c) { return torch::tensor({a, b, c}, torch::kDouble); }
const at::Tensor kRef = trace(7.0, 6.5, 6.0);

}  // namespace

TEST(LossTraces, WellConditionedTraceIsJudged) {
  const auto base = trace(7.0, 6.5 * (1 + 1e-4), 6.0);
  EXPECT_EQ(judge_loss_traces(kRef, base, trace(7.0, 6.5 * (1 + 5e-4), 6.0), 1e-3, 1e-3).problem, "");
  const Verdict off = judge_loss_traces(kRef, base, trace(7.0, 6.5 * (1 + 2e-3), 6.0), 1e-3, 1e-3);
  EXPECT_NE(off.problem.find("loss trace deviates from float64"), std::string::npos) << off.problem;
  EXPECT_TRUE(off.details.at("trace_judged").get<bool>());
  EXPECT_DOUBLE_EQ(off.details.at("trace_allowed").get<double>(), 1e-3);
  // Three times the baseline's own deviation is allowed where that is larger.
  const auto noisier = trace(7.0, 6.5 * (1 + 9e-4), 6.0);
  EXPECT_EQ(judge_loss_traces(kRef, noisier, trace(7.0, 6.5 * (1 + 2e-3), 6.0), 1e-3, 1e-3).problem, "");
}

TEST(LossTraces, IllConditionedTraceJudgesTheFirstStepOnly) {
  const auto base = trace(7.0 * (1 + 5e-6), 6.9, 6.6);  // fp32 baseline 6% away from float64 by step 3
  const Verdict chaotic = judge_loss_traces(kRef, base, trace(7.0 * (1 - 5e-6), 6.2, 5.1), 1e-3, 1e-3);
  EXPECT_EQ(chaotic.problem, "");
  EXPECT_FALSE(chaotic.details.at("trace_judged").get<bool>());
  EXPECT_NE(chaotic.details.at("note").get<std::string>().find("ill-conditioned"), std::string::npos);
  // A variant that computes something else is caught at its first loss.
  const Verdict wrong = judge_loss_traces(kRef, base, trace(7.0 * 1.01, 6.9, 6.6), 1e-3, 1e-3);
  EXPECT_NE(wrong.problem.find("first-step loss deviates from float64"), std::string::npos) << wrong.problem;
  // Lower precision: its own tolerance.
  EXPECT_EQ(judge_loss_traces(kRef, base, trace(7.0 * 1.01, 6.0, 5.0), 1e-3, 5e-2).problem, "");
}

TEST(LossTraces, NonFiniteLossFails) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(judge_loss_traces(kRef, kRef, trace(7.0, inf, 6.0), 1e-3, 5e-2).problem, "non-finite loss");
}
