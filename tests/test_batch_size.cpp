// The batch-size sweep on the CPU: its derived figures from a synthetic result
// (with an out-of-memory batch), and its verification, which holds every batch
// to the smallest batch's float64 loss trace and must fail for other data.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/case_result.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/models/resnet.h"
#include "workloads/training/train_step.h"
#include "workloads/training/verify_losses.h"

using namespace optbench;
using namespace optbench::workloads;
using json = nlohmann::json;

namespace {

Case sweep_case() {
  const Experiment* e = Registry::instance().match("^batch_size$").at(0);
  return e->cases(RunContext{DeviceKind::cpu, RunProfile::quick}).at(0);
}

VariantResult variant(double batch, VariantStatus status, std::optional<double> sps, std::optional<double> peak) {
  VariantResult v;
  v.name = "batch_" + std::to_string(static_cast<int>(batch));
  v.status = status;
  v.units = WorkUnits{0, 0, batch, "images"};
  v.throughput.items_per_s = sps;
  if (peak) v.memory = MemoryPeak{static_cast<std::int64_t>(*peak), static_cast<std::int64_t>(*peak)};
  return v;
}

CaseResult sweep(std::vector<VariantResult> variants, double case_items = 0) {
  CaseResult r;
  r.units.items = case_items;
  r.variants = std::move(variants);
  return r;
}

}  // namespace

TEST(BatchSizeSweep, DerivesLargestFittingBestAndDiminishingReturns) {
  const Case c = sweep_case();
  ASSERT_TRUE(c.derive);
  // Listed out of order on purpose; 1024 ran out of memory while being built,
  // 512 fit but ran out mid-sampling (its partial throughput must not count).
  const auto ok = VariantStatus::ok, oom = VariantStatus::oom;
  const CaseResult r =
      sweep({variant(64, ok, 1000, 4e9), variant(128, ok, 1500, 8e9), variant(1024, oom, std::nullopt, 7.9e10),
             variant(256, ok, 1700, 1.6e10), variant(512, oom, 9000, 3.2e10), variant(2048, oom, std::nullopt, 1e9)},
            64);
  const json d = c.derive(r);
  EXPECT_EQ(d.at("largest_fitting_batch").get<double>(), 256);
  EXPECT_EQ(d.at("smallest_oom_batch").get<double>(), 512);
  EXPECT_FALSE(d.at("largest_fitting_is_lower_bound").get<bool>());
  EXPECT_TRUE(d.at("other_failures").empty());
  EXPECT_EQ(d.at("best_batch").get<double>(), 256);
  EXPECT_EQ(d.at("best_samples_per_s").get<double>(), 1700);
  // 128 gives 1500 < 0.9 x 1700 = 1530: the smallest batch near the best is 256 itself.
  EXPECT_EQ(d.at("diminishing_returns_batch").get<double>(), 256);
  const auto& rows = d.at("table").at("rows");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0][0].get<double>(), 64);  // sorted by batch
  EXPECT_EQ(rows[4][1], "oom");
  EXPECT_TRUE(rows[4][2].is_null());
  EXPECT_NEAR(rows[1][4].get<double>(), 1500.0 / 1700.0, 1e-12);
}

TEST(BatchSizeSweep, DiminishingReturnsIsTheSmallestBatchNearTheBest) {
  const Case c = sweep_case();
  const auto ok = VariantStatus::ok;
  const CaseResult r = sweep({variant(2, ok, 100, std::nullopt), variant(4, ok, 185, std::nullopt),
                              variant(8, ok, 200, std::nullopt), variant(16, ok, 190, std::nullopt)});
  const json d = c.derive(r);
  EXPECT_EQ(d.at("best_batch").get<double>(), 8);
  EXPECT_EQ(d.at("diminishing_returns_batch").get<double>(), 4);  // 185 >= 180
  EXPECT_EQ(d.at("largest_fitting_batch").get<double>(), 16);
  EXPECT_TRUE(d.at("largest_fitting_is_lower_bound").get<bool>()) << "nothing ran out of memory";
  EXPECT_TRUE(d.at("smallest_oom_batch").is_null());
  // A failure other than out-of-memory is listed, and is not taken for the limit.
  const CaseResult r2 =
      sweep({variant(2, ok, 100, std::nullopt), variant(4, VariantStatus::error, std::nullopt, std::nullopt)});
  const json d2 = c.derive(r2);
  EXPECT_EQ(d2.at("largest_fitting_batch").get<double>(), 2);
  EXPECT_TRUE(d2.at("largest_fitting_is_lower_bound").get<bool>());
  ASSERT_EQ(d2.at("other_failures").size(), 1u);
  EXPECT_EQ(d2.at("other_failures")[0].at("batch").get<double>(), 4);
}

TEST(BatchSizeSweep, EveryBatchMatchesTheSmallestBatchsFloat64TraceAndOtherDataDoesNot) {
  const Case c = sweep_case();
  ASSERT_GE(c.variants.size(), 3u);
  for (std::size_t i = 0; i < c.variants.size(); ++i) {
    ASSERT_TRUE(c.variants[i].units) << "per-variant units: speedups compare samples/s";
    EXPECT_EQ(c.variants[i].units->items, c.units.items * static_cast<double>(1 << i));
  }
  auto base = c.variants[0].make();
  for (std::size_t i = 1; i < c.variants.size(); ++i) {
    auto v = c.variants[i].make();
    std::vector<Workload*> pair{base.get(), v.get()};
    EXPECT_EQ(c.verify(pair).problem, "") << c.variants[i].name;
  }
  // The same model and batch size on different images: a different loss trace,
  // which the check must reject.
  const auto b = static_cast<std::int64_t>(c.variants.back().units->items);
  const auto x = seeded_randn({b, 3, c.params["image"].get<std::int64_t>(), c.params["image"].get<std::int64_t>()},
                              torch::TensorOptions(), 99);
  const auto y = torch::randint(0, 10, {b}, torch::kLong);
  TrainStep other(
      [] {
        torch::manual_seed(0);
        return make_net(ResNet(std::vector<std::int64_t>{1, 1, 1, 1}, 10));
      },
      [x, y](std::int64_t) { return std::make_pair(x, y); }, TrainOptions{}, torch::kCPU);
  std::vector<Workload*> pair{base.get(), &other};
  EXPECT_NE(c.verify(pair).problem.find("deviates from float64"), std::string::npos);
}
