// Settings travel to a run's child processes as one JSON object
// (harness/run_settings.h). These tests add nothing by hand per field: each
// settings struct's member count must equal the keys its serializer writes, the
// test value below must differ from the default in every leaf, and that value
// must survive the trip. A member added and not serialized, or serialized one
// way only, fails here.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "harness/run_settings.h"
#include "harness/suite_runner.h"

using namespace optbench;
using json = nlohmann::json;

namespace {

// An aggregate's member count: the most initializers T{...} accepts, each
// converting to whatever its member is (a base class counts as one).
struct AnyMember {
  template <class T>
  operator T() const;
};
template <class T, class... A>
auto braces(int) -> decltype(T{std::declval<A>()...}, std::true_type{});
template <class T, class... A>
std::false_type braces(...);
template <class T, class... A>
constexpr std::size_t member_count() {
  if constexpr (decltype(braces<T, A..., AnyMember>(0))::value)
    return member_count<T, A..., AnyMember>();
  else
    return sizeof...(A);
}

// The check itself must count: a struct of three members and one with a base.
struct Three {
  int a = 0;
  std::string b;
  std::optional<double> c;
};
struct ThreeAndOne : Three {
  std::vector<std::string> d;
};
static_assert(member_count<Three>() == 3);
static_assert(member_count<ThreeAndOne>() == 2);

// Every leaf of a JSON object by its path ("/measure/stopping/min_samples").
void leaves(const json& j, const std::string& path, std::map<std::string, json>& out) {
  if (!j.is_object()) {
    out[path] = j;
    return;
  }
  for (const auto& [k, v] : j.items()) leaves(v, path + "/" + k, out);
}
std::map<std::string, json> leaves(const json& j) {
  std::map<std::string, json> out;
  leaves(j, "", out);
  return out;
}

// The test value covers every field: each leaf differs from the default's.
void expect_every_leaf_changed(const json& changed, const json& defaults, const std::set<std::string>& constants = {}) {
  const auto c = leaves(changed), d = leaves(defaults);
  ASSERT_EQ(c.size(), d.size()) << changed.dump() << "\nvs default\n" << defaults.dump();
  for (const auto& [path, value] : c) {
    ASSERT_TRUE(d.count(path)) << path;
    if (constants.count(path)) continue;
    EXPECT_NE(value, d.at(path)) << path << " has its default value in the test value: set it to another";
  }
}

template <class T>
json round_trip(const T& v) {
  return json(json::parse(json(v).dump()).get<T>());
}

RunSettings changed_run() {
  RunSettings s;
  s.device = DeviceKind::cuda;
  s.profile = RunProfile::full;
  s.filter = "^(a|b)$";
  s.time_budget_s = 123.456789012345;
  s.hang_timeout_s = 77.25;
  s.progress = false;
  MeasureConfig& m = s.measure;
  m.stopping = {7, 0.7, 7.5, 777, 0.07, 0.9};
  m.warmup_min_s = 0.3;
  m.warmup_max_s = 3.5;
  m.target_sample_s = 4e-3;
  m.max_iters_per_sample = 5000;
  m.order = InterleaveOrder::abba;
  m.seed = 18446744073709551557ULL;  // needs all 64 bits
  m.isolate = true;
  m.cold_processes = 5;
  m.processes = 4;
  m.min_processes = 3;
  m.process_target_rel_ci = 0.17;
  m.process_time_share = 0.77;
  m.repeat_all = true;
  m.repeat = {{5, 0.04, 0.6, 555, 0.06, 0.8}, 0.03, 0.4};
  m.breakdown = {profiling::BreakdownMode::on, "/tmp/traces \"quoted\" dir", "run.one", 0.3, 0.4};
  return s;
}

ExperimentChildSettings changed_child() {
  return {changed_run(),
          "/tmp/out.json.part-x",
          3,
          14,
          2,
          1,
          true,
          {{"a case", {{"fused", 2.5e-3}}}},
          {{"a case", 0.75}},
          {{"a case", {"baseline", "fused"}}}};
}

WorkerArgs changed_worker() {
  return {"dataloader", "workers", 2, RunContext{DeviceKind::cuda, RunProfile::quick, 9.5}};
}

}  // namespace

TEST(RunSettings, EveryMemberIsSerialized) {
  EXPECT_EQ(member_count<StoppingConfig>(), json(StoppingConfig{}).size());
  EXPECT_EQ(member_count<profiling::BreakdownConfig>(), json(profiling::BreakdownConfig{}).size());
  EXPECT_EQ(member_count<RepeatConfig>(), json(RepeatConfig{}).size());
  EXPECT_EQ(member_count<MeasureConfig>() + 1, json(MeasureConfig{}).size());  // + data_seed, a constant
  EXPECT_EQ(member_count<RunSettings>(), json(RunSettings{}).size());
  EXPECT_EQ(member_count<ExperimentChildSettings>(), json(ExperimentChildSettings{}).size());
  EXPECT_EQ(member_count<RunContext>(), json(RunContext{}).size());
  EXPECT_EQ(member_count<WorkerArgs>(), json(WorkerArgs{}).size());
}

TEST(RunSettings, TheTestValuesChangeEveryLeaf) {
  expect_every_leaf_changed(changed_run(), RunSettings{}, {"/measure/data_seed"});
  // A map's leaves are its entries, and the default has none: the test's entry is
  // held against the same key with no variants.
  ExperimentChildSettings child_defaults;
  child_defaults.timed_step_s = {{"a case", {{"fused", 0.0}}}};
  child_defaults.case_wall_s = {{"a case", 0.0}};
  child_defaults.repeat_only = {{"a case", {}}};
  expect_every_leaf_changed(changed_child(), child_defaults, {"/run/measure/data_seed"});
  expect_every_leaf_changed(changed_worker(), WorkerArgs{});
}

TEST(RunSettings, EveryFieldSurvivesTheTrip) {
  EXPECT_EQ(round_trip(changed_run()), json(changed_run()));
  EXPECT_EQ(round_trip(changed_child()), json(changed_child()));
  EXPECT_EQ(round_trip(changed_worker()), json(changed_worker()));
  EXPECT_EQ(round_trip(RunSettings{}), json(RunSettings{}));
}

TEST(RunSettings, ReadsExactlyTheKeysItWrites) {
  const json good = changed_run();
  json missing = good;
  missing["measure"]["stopping"].erase("confidence");
  EXPECT_THROW(missing.get<RunSettings>(), std::invalid_argument);
  json unknown = good;
  unknown["measure"]["warmup_s"] = 1.0;
  EXPECT_THROW(unknown.get<RunSettings>(), std::invalid_argument);
  json bad_word = good;
  bad_word["measure"]["breakdown"]["mode"] = "always";
  EXPECT_THROW(bad_word.get<RunSettings>(), std::invalid_argument);
}

// The results' config keys the report and older files use stay where they were.
TEST(RunSettings, ConfigKeepsItsKeys) {
  const json c = RunSettings{};
  for (const char* k : {"device", "profile", "filter", "time_budget_s", "measure"}) EXPECT_TRUE(c.contains(k)) << k;
  for (const char* k : {"warmup_min_s", "warmup_max_s", "target_sample_s", "max_iters_per_sample", "interleave", "seed",
                        "data_seed", "isolate", "cold_processes", "processes", "breakdown", "stopping"})
    EXPECT_TRUE(c["measure"].contains(k)) << k;
  EXPECT_EQ(c["measure"]["breakdown"]["mode"], "auto");
  EXPECT_EQ(c["time_budget_s"], nullptr);
}

// SuiteOptions is the settings plus what stays with the process that holds
// them. A member added to it must be placed: a setting goes in RunSettings
// (and travels); one that does not travel gets its reason in suite_runner.h
// and this count goes up by one.
TEST(RunSettings, SuiteOptionsPlaceEveryMember) {
  // RunSettings, then out_path, argv, worker_executable, guard_experiments,
  // guarded_child, later_experiments, prior_cases, prior_experiments, process_index,
  // profiling, timed_step_s, case_wall_s, repeat_only.
  EXPECT_EQ(member_count<SuiteOptions>(), 1u + 13u);
  const ExperimentChildSettings sent = changed_child();
  const SuiteOptions o = suite_options_for_child(json::parse(json(sent).dump()).get<ExperimentChildSettings>());
  EXPECT_EQ(json(static_cast<const RunSettings&>(o)), json(sent.run));
  EXPECT_EQ(o.out_path, sent.out_path);
  EXPECT_EQ(o.later_experiments, sent.later_experiments);
  EXPECT_EQ(o.prior_cases, sent.prior_cases);
  EXPECT_EQ(o.prior_experiments, sent.prior_experiments);
  EXPECT_EQ(o.process_index, sent.process_index);
  EXPECT_EQ(o.profiling, sent.profiling);
  EXPECT_EQ(o.timed_step_s, sent.timed_step_s);
  EXPECT_EQ(o.case_wall_s, sent.case_wall_s);
  EXPECT_EQ(o.repeat_only, sent.repeat_only);
  EXPECT_TRUE(o.guarded_child);
  EXPECT_FALSE(o.guard_experiments);
}

// One spelling for a breakdown mode: the command line's, in the results too.
TEST(RunSettings, BreakdownModesAreTheCommandLineWords) {
  std::vector<std::string> words;
  for (auto m : {profiling::BreakdownMode::auto_, profiling::BreakdownMode::on, profiling::BreakdownMode::off}) {
    words.push_back(profiling::to_string(m));
    EXPECT_EQ(profiling::parse_breakdown_mode(words.back()), m);
    RunSettings s;
    s.measure.breakdown.mode = m;
    EXPECT_EQ(json(s)["measure"]["breakdown"]["mode"], words.back());
  }
  EXPECT_EQ(words, (std::vector<std::string>{"auto", "on", "off"}));
  EXPECT_EQ(profiling::breakdown_mode_words(), words);
}
