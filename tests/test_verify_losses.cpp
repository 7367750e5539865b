// The training check on synthetic records: a first step off by more than its
// precision fails wherever the rest goes; logits are judged where the forward
// pass is well-conditioned at the variant's precision; the trace is judged only
// where the baseline itself tracks float64 (an ill-conditioned trace's deviations
// are noise: on a fresh ResNet-50 at 32 px, fp32 and fp32 channels_last left
// float64 by 0.4%-8% depending on the labels, which made the old check fail at random).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "workloads/training/verify_losses.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

constexpr double kFp32 = 0x1p-24, kBf16 = 0x1p-8;

at::Tensor trace(double a, double b, double c) { return torch::tensor({a, b, c}, torch::kDouble); }
const at::Tensor kRef = trace(7.0, 6.5, 6.0);

TrainRecord rec(at::Tensor losses, double tol, double u = kFp32, at::Tensor logits = {}) {
  return {std::move(losses), std::move(logits), tol, u};
}

// `ref` moved by a norm-wise relative deviation of exactly `dev`.
at::Tensor off_by(const at::Tensor& ref, double dev, std::uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  const auto n = at::randn(ref.sizes(), gen, torch::kDouble);
  return ref + n * (dev * ref.norm() / n.norm());
}

at::Tensor logits(std::int64_t rows = 2) {
  auto gen = at::detail::createCPUGenerator(1);
  return at::randn({rows, 100}, gen, torch::kDouble);
}

}  // namespace

TEST(LossTraces, WellConditionedTraceIsJudged) {
  const auto base = rec(trace(7.0, 6.5 * (1 + 1e-4), 6.0), 1e-3);
  EXPECT_EQ(judge_training(rec(kRef, 0), base, rec(trace(7.0, 6.5 * (1 + 5e-4), 6.0), 1e-3)).problem, "");
  const CheckResult off = judge_training(rec(kRef, 0), base, rec(trace(7.0, 6.5 * (1 + 2e-3), 6.0), 1e-3));
  EXPECT_NE(off.problem.find("loss trace deviates from float64"), std::string::npos) << off.problem;
  EXPECT_TRUE(off.details.at("trace_judged").get<bool>());
  EXPECT_DOUBLE_EQ(off.details.at("trace_allowed").get<double>(), 1e-3);
  // Three times the baseline's own deviation is allowed where that is larger.
  const auto noisier = rec(trace(7.0, 6.5 * (1 + 9e-4), 6.0), 1e-3);
  EXPECT_EQ(judge_training(rec(kRef, 0), noisier, rec(trace(7.0, 6.5 * (1 + 2e-3), 6.0), 1e-3)).problem, "");
}

TEST(LossTraces, IllConditionedTraceJudgesTheFirstStepOnly) {
  const auto base = rec(trace(7.0 * (1 + 5e-6), 6.9, 6.6), 1e-3);  // fp32 baseline 6% away from float64 by step 3
  const CheckResult chaotic = judge_training(rec(kRef, 0), base, rec(trace(7.0 * (1 - 5e-6), 6.2, 5.1), 1e-3));
  EXPECT_EQ(chaotic.problem, "");
  EXPECT_FALSE(chaotic.details.at("trace_judged").get<bool>());
  EXPECT_NE(chaotic.details.at("note").get<std::string>().find("ill-conditioned"), std::string::npos);
  // A variant that computes something else is caught at its first loss.
  const CheckResult wrong = judge_training(rec(kRef, 0), base, rec(trace(7.0 * 1.01, 6.9, 6.6), 1e-3));
  EXPECT_NE(wrong.problem.find("first-step loss deviates from float64"), std::string::npos) << wrong.problem;
  // Lower precision: its own tolerance.
  EXPECT_EQ(judge_training(rec(kRef, 0), base, rec(trace(7.0 * 1.01, 6.0, 5.0), 5e-2, kBf16)).problem, "");
}

TEST(LossTraces, NonFiniteLossFails) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(judge_training(rec(kRef, 0), rec(kRef, 1e-3), rec(trace(7.0, inf, 6.0), 5e-2)).problem, "non-finite loss");
}

// At init a loss sits near ln(classes) whatever the logits are: the logits are
// what shows a forward pass that computes something else.
TEST(LossTraces, LogitsCatchAForwardPassTheLossCannotSee) {
  const auto ref = rec(kRef, 0, 0, logits());
  const auto base = rec(kRef, 1e-3, kFp32, off_by(logits(), 1e-7, 2));  // condition estimate ~1.7
  const CheckResult ok = judge_training(ref, base, rec(kRef, 5e-2, kBf16, off_by(logits(), 1e-2, 3)));
  EXPECT_EQ(ok.problem, "");
  EXPECT_TRUE(ok.details.at("first_logits_judged").get<bool>());
  EXPECT_DOUBLE_EQ(ok.details.at("first_logits_allowed").get<double>(), 5e-2);
  const CheckResult wrong = judge_training(ref, base, rec(kRef, 5e-2, kBf16, off_by(logits(), 0.8, 4)));
  EXPECT_NE(wrong.problem.find("first-step logits deviates from float64"), std::string::npos) << wrong.problem;
}

// An fp32 baseline 1e-4 away from float64 (condition ~1700) tells that bf16 is
// expected to be several times off: its logits are not judged, and it says so.
TEST(LossTraces, LogitsOfAnIllConditionedForwardAreNotJudged) {
  const auto ref = rec(kRef, 0, 0, logits());
  const auto base = rec(kRef, 1e-3, kFp32, off_by(logits(), 1e-4, 2));
  const CheckResult v = judge_training(ref, base, rec(kRef, 5e-2, kBf16, off_by(logits(), 0.65, 3)));
  EXPECT_EQ(v.problem, "");
  EXPECT_FALSE(v.details.at("first_logits_judged").get<bool>());
  EXPECT_NE(v.details.at("note").get<std::string>().find("logits not judged"), std::string::npos);
  // The same baseline still judges another fp32 variant.
  const CheckResult fp32 = judge_training(ref, base, rec(kRef, 1e-3, kFp32, off_by(logits(), 5e-2, 3)));
  EXPECT_NE(fp32.problem.find("first-step logits"), std::string::npos) << fp32.problem;
}

// A larger batch of the sweep repeats the baseline's samples: the samples all
// three records have are compared.
TEST(LossTraces, LogitsOfALargerBatchCompareTheCommonSamples) {
  const auto ref = rec(kRef, 0, 0, logits(2));
  const auto base = rec(kRef, 1e-3, kFp32, logits(2));
  const auto big = torch::cat({logits(2), logits(2) * 5});  // rows 2..3: other images
  const CheckResult v = judge_training(ref, base, rec(kRef, 1e-3, kFp32, big));
  EXPECT_EQ(v.problem, "");
  EXPECT_DOUBLE_EQ(v.details.at("first_logits_rel_dev").get<double>(), 0.0);
}
