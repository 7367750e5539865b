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

namespace {

// One case "c" whose comparison v/b has these figures in its first process.
json first_cases(json comparison) {
  comparison["baseline"] = "b";
  comparison["variant"] = "v";
  return json::array({{{"name", "c"}, {"comparisons", json::array({comparison})}}});
}

// A further process's record of case "c": v/b's ratio, or none.
CaseRepeat repeat(std::size_t process, std::optional<double> speedup) {
  const json first = first_cases({{"speedup", 1.0}})[0];
  json cm = {{"baseline", "b"}, {"variant", "v"}, {"speedup", speedup ? json(*speedup) : json(nullptr)}};
  return recorded_repeat(first, {{"name", "c"}, {"comparisons", json::array({cm})}}, process);
}

std::optional<EstimateRecord> only_estimate(const json& cases, const std::vector<CaseRepeat>& repeats) {
  const auto across = comparisons_across(cases, repeats, 0.95);
  EXPECT_EQ(across.size(), 1u);
  return estimate_of(across.at(0));
}

}  // namespace

TEST(TwoLevel, RecordAcrossProcessesSkipsThoseWithoutARatio) {
  const json cases = first_cases({{"speedup", 2.0}, {"ci_low", 1.9}, {"ci_high", 2.1}, {"rounds", 40}});
  const auto e = only_estimate(cases, {repeat(1, 2.2), repeat(2, std::nullopt), repeat(3, 1.8)});
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->across_processes);
  EXPECT_EQ(e->n, 3);
  EXPECT_EQ(e->df, 2);
  EXPECT_NEAR(e->speedup, std::cbrt(2.0 * 2.2 * 1.8), 1e-12);
  EXPECT_LT(*e->ci_low, 1.9);  // three processes spread wider than one's rounds
  const json j = to_json(*e);
  EXPECT_EQ(j["unit"], "process");
  EXPECT_EQ(j["case"], "c");
  EXPECT_EQ(j["variant"], "v");
}

TEST(TwoLevel, RecordOfOneProcessIsItsOwnIntervalOrNone) {
  json cm = {{"speedup", 2.0}, {"ci_low", 1.9}, {"ci_high", 2.1}, {"rounds", 40}};
  auto e = only_estimate(first_cases(cm), {});
  ASSERT_TRUE(e);
  EXPECT_EQ(to_json(*e)["unit"], "round");
  EXPECT_EQ(e->n, 40);
  EXPECT_DOUBLE_EQ(*e->ci_low, 1.9);
  cm["below_floor"] = true;
  e = only_estimate(first_cases(cm), {});
  EXPECT_TRUE(to_json(*e)["ci_low"].is_null());
  // A further process's ratio without one in the first process says nothing.
  EXPECT_FALSE(only_estimate(first_cases({{"speedup", nullptr}}), {repeat(1, 2.0)}));
}

TEST(TwoLevel, ARepeatOfAnotherCaseOrComparisonIsNotJoined) {
  CaseRepeat elsewhere = repeat(1, 9.0);
  elsewhere.case_name = "d";
  CaseRepeat other_variant = repeat(2, 9.0);
  other_variant.comparisons.at(0).variant = "w";
  const auto e = only_estimate(first_cases({{"speedup", 2.0}}), {elsewhere, other_variant});
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->across_processes);
  EXPECT_EQ(e->speedup, 2.0);
}

TEST(TwoLevel, WidestIntervalDrivesTheProcessStoppingRule) {
  json cases = first_cases({{"speedup", 2.0}});
  std::vector<CaseRepeat> repeats = {repeat(1, 2.02)};
  const double narrow = widest_process_interval(comparisons_across(cases, repeats, 0.95));
  cases.push_back({{"name", "d"}, {"comparisons", {{{"baseline", "b"}, {"variant", "v"}, {"speedup", 1.0}}}}});
  CaseRepeat wide = repeat(1, 3.0);
  wide.case_name = "d";
  repeats.push_back(wide);
  EXPECT_GT(widest_process_interval(comparisons_across(cases, repeats, 0.95)), narrow);
  EXPECT_EQ(widest_process_interval(comparisons_across(first_cases({{"speedup", 1.0}}), {}, 0.95)), 0.0);
}

TEST(TwoLevel, AnExperimentWithoutRatiosHasNothingToRepeat) {
  json cases = first_cases({{"speedup", nullptr}});
  cases.push_back({{"name", "skipped"}, {"status", "skipped"}});
  EXPECT_FALSE(has_ratios(comparisons_across(cases, {}, 0.95)));
  EXPECT_TRUE(has_ratios(comparisons_across(first_cases({{"speedup", 1.2}}), {}, 0.95)));
}

TEST(ProcessRepeats, AMissingProcessGivesEveryComparisonItsReason) {
  const json first = first_cases({{"speedup", 2.0}})[0];
  const json j = to_json(missing_repeat(first, 2, ExperimentStatus::crashed, "killed by SIGSEGV"));
  EXPECT_EQ(j["process"], 2);
  EXPECT_EQ(j["case"], "c");
  EXPECT_EQ(j["status"], "crashed");
  EXPECT_FALSE(j.contains("variants"));
  ASSERT_EQ(j["comparisons"].size(), 1u);
  EXPECT_TRUE(j["comparisons"][0]["speedup"].is_null());
  EXPECT_EQ(j["comparisons"][0]["reason"], "killed by SIGSEGV");
}

TEST(ProcessRepeats, ARecordedProcessKeepsItsVariantsFactsAndSaysWhyAComparisonHasNoRatio) {
  const json first = first_cases({{"speedup", 2.0}})[0];
  const json child = {
      {"name", "c"},
      {"status", "ok"},
      {"rounds", 7},
      {"variants",
       {{{"name", "b"}, {"stats", {{"median", 0.5}}}, {"samples", {{"minor_faults", {1, 3, 2}}}}},
        {{"name", "v"}, {"status", "error"}}}},
      {"comparisons",
       {{{"baseline", "b"}, {"variant", "v"}, {"speedup", nullptr}, {"verification", {{"message", "v failed"}}}}}}};
  const json j = to_json(recorded_repeat(first, child, 1));
  EXPECT_EQ(j["rounds"], 7);
  EXPECT_EQ(j["variants"]["b"]["median_s"], 0.5);
  EXPECT_EQ(j["variants"]["b"]["minor_faults_per_step"], 2.0);
  EXPECT_EQ(j["variants"]["b"]["status"], "ok");
  EXPECT_EQ(j["variants"]["v"]["status"], "error");
  EXPECT_TRUE(j["variants"]["v"]["median_s"].is_null());
  EXPECT_EQ(j["comparisons"][0]["reason"], "v failed");
  const json absent = to_json(recorded_repeat(first, {{"name", "c"}}, 1));
  EXPECT_EQ(absent["comparisons"][0]["reason"], "the process recorded no such comparison");
}

// A process that ran some of the case's variants (the ones a claim reads) says
// nothing of a comparison whose variant it did not run.
TEST(ProcessRepeats, AComparisonOfAVariantNotRepeatedIsLeftOut) {
  json first = first_cases({{"speedup", 2.0}})[0];
  first["comparisons"].push_back({{"baseline", "b"}, {"variant", "w"}, {"speedup", 3.0}});
  const json child = {{"name", "c"},
                      {"variants", {{{"name", "b"}}, {{"name", "v"}}}},
                      {"comparisons", {{{"baseline", "b"}, {"variant", "v"}, {"speedup", 1.9}}}}};
  const json j = to_json(recorded_repeat(first, child, 1));
  ASSERT_EQ(j["comparisons"].size(), 1u);
  EXPECT_EQ(j["comparisons"][0]["variant"], "v");
  EXPECT_EQ(j["comparisons"][0]["speedup"], 1.9);
}

// One reader of a comparison's figures serves the repeats and the estimate: the
// first process's interval, rounds and floor flag reach the estimate as a
// further process's reach its repeat record.
TEST(ProcessRepeats, OneComparisonReaderServesTheRepeatsAndTheEstimate) {
  const json cm = {{"baseline", "b"}, {"variant", "v"}, {"speedup", 1.5},       {"ci_low", 1.4},
                   {"ci_high", 1.6},  {"rounds", 12},   {"below_floor", false}, {"confidence", 0.95}};
  const ComparisonRepeat r = comparison_record(cm);
  EXPECT_EQ(r.speedup, 1.5);
  EXPECT_EQ(r.ci_low, 1.4);
  EXPECT_EQ(r.ci_high, 1.6);
  EXPECT_EQ(r.rounds, 12);
  EXPECT_EQ(r.below_floor, false);
  EXPECT_TRUE(r.reason.empty());
  const json cases = json::array({{{"name", "c"}, {"comparisons", json::array({cm})}}});
  const auto across = comparisons_across(cases, {}, 0.95);
  ASSERT_EQ(across.size(), 1u);
  const auto e = estimate_of(across[0]);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->speedup, 1.5);
  EXPECT_EQ(e->ci_low, 1.4);
  EXPECT_EQ(e->n, 12);
  // Without a ratio: the verification's message says why, and no estimate is made.
  const json failed = {{"baseline", "b"},
                       {"variant", "v"},
                       {"speedup", nullptr},
                       {"ci_low", 1.0},
                       {"verification", {{"message", "outputs differ"}}}};
  EXPECT_EQ(comparison_record(failed).reason, "outputs differ");
  EXPECT_FALSE(comparison_record(failed).ci_low.has_value());
  const json none = json::array({{{"name", "c"}, {"comparisons", json::array({failed})}}});
  EXPECT_FALSE(estimate_of(comparisons_across(none, {}, 0.95)[0]).has_value());
}
