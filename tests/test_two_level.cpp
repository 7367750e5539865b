#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/two_level.h"

using namespace optbench;
using json = nlohmann::json;

namespace {

json golden() {
  std::ifstream f(OPTBENCH_TEST_DATA "/two_level_golden.json");
  return json::parse(f);
}

}  // namespace

// The same file report/tests/test_estimate.py checks the Python reading against.
TEST(TwoLevel, StudentTQuantileMatchesScipy) {
  for (const auto& q : golden()["t_quantiles"])
    EXPECT_NEAR(student_t_quantile(q["p"], q["df"]), q["t"].get<double>(), 1e-9 * std::fabs(q["t"].get<double>()))
        << "p " << q["p"] << " df " << q["df"];
}

TEST(TwoLevel, IntervalMatchesScipy) {
  for (const auto& c : golden()["intervals"]) {
    const auto p = across_processes(c["speedups"].get<std::vector<double>>(), c["confidence"]);
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->estimate, c["estimate"].get<double>(), 1e-12);
    EXPECT_NEAR(p->low, c["ci_low"].get<double>(), 1e-9);
    EXPECT_NEAR(p->high, c["ci_high"].get<double>(), 1e-9);
    EXPECT_LE(p->low, p->estimate);
    EXPECT_GE(p->high, p->estimate);
  }
}

TEST(TwoLevel, NoIntervalFromOneProcess) {
  EXPECT_FALSE(across_processes({1.5}, 0.95));
  EXPECT_FALSE(across_processes({1.5, -1.0, 0.0}, 0.95));  // only positive ratios count
  EXPECT_THROW(student_t_quantile(1.0, 3), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(0.9, 0.5), std::invalid_argument);
}

TEST(TwoLevel, RecordAcrossProcessesSkipsThoseWithoutARatio) {
  const json cm = {{"speedup", 2.0},
                   {"ci_low", 1.9},
                   {"ci_high", 2.1},
                   {"rounds", 40},
                   {"repeats",
                    {{{"process", 1}, {"speedup", 2.2}},
                     {{"process", 2}, {"speedup", nullptr}},
                     {{"process", 3}, {"speedup", 1.8}}}}};
  const json e = estimate_record(cm, 0.95);
  EXPECT_EQ(e["unit"], "process");
  EXPECT_EQ(e["n"], 3);
  EXPECT_EQ(e["df"], 2);
  EXPECT_NEAR(e["speedup"].get<double>(), std::cbrt(2.0 * 2.2 * 1.8), 1e-12);
  EXPECT_LT(e["ci_low"].get<double>(), 1.9);  // three processes spread wider than one's rounds
}

TEST(TwoLevel, RecordOfOneProcessIsItsOwnIntervalOrNone) {
  json cm = {{"speedup", 2.0}, {"ci_low", 1.9}, {"ci_high", 2.1}, {"rounds", 40}};
  json e = estimate_record(cm, 0.95);
  EXPECT_EQ(e["unit"], "round");
  EXPECT_EQ(e["n"], 40);
  EXPECT_DOUBLE_EQ(e["ci_low"].get<double>(), 1.9);
  cm["below_floor"] = true;
  e = estimate_record(cm, 0.95);
  EXPECT_TRUE(e["ci_low"].is_null());
  EXPECT_TRUE(estimate_record({{"speedup", nullptr}}, 0.95).is_null());
}

TEST(TwoLevel, WidestIntervalDrivesTheProcessStoppingRule) {
  json cases = json::array();
  cases.push_back({{"comparisons", {{{"speedup", 2.0}, {"repeats", {{{"speedup", 2.02}}}}}}}});
  const double narrow = widest_process_interval(cases, 0.95);
  cases.push_back({{"comparisons", {{{"speedup", 1.0}, {"repeats", {{{"speedup", 3.0}}}}}}}});
  EXPECT_GT(widest_process_interval(cases, 0.95), narrow);
  EXPECT_EQ(widest_process_interval(json::array({{{"comparisons", {{{"speedup", 1.0}}}}}}), 0.95), 0.0);
}

TEST(TwoLevel, AnExperimentWithoutRatiosHasNothingToRepeat) {
  EXPECT_FALSE(has_ratios(json::array({{{"status", "skipped"}}, {{"comparisons", {{{"speedup", nullptr}}}}}})));
  EXPECT_TRUE(has_ratios(json::array({{{"comparisons", {{{"speedup", 1.2}}}}}})));
}
