// The typed case result and its one serializer: a case run on the fake backend,
// written into a results file, must satisfy harness/results.schema.json (checked
// by the report's validator), and the file must carry the typed figures.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

#include "harness/budget_plan.h"
#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/environment.h"
#include "harness/results_writer.h"
#include "harness/run_settings.h"
#include "tests/fake_backend.h"
#include "tests/schema_check.h"

using namespace optbench;
using namespace optbench::testing;
using json = nlohmann::json;

namespace {

struct Fixture : SimulatedRun {
  Variant variant(std::string name, double seconds, std::uint64_t seed, double value = 1.0) {
    return Variant{name, "does " + name,
                   [=, this] { return std::make_unique<FakeWork>(clock, seconds, 0.01, seed, -1, value); }};
  }
  CaseResult run(const Case& c, std::optional<double> deadline = std::nullopt) {
    return run_case(c, backend, cfg, {5.0, deadline, std::nullopt}, stop);
  }
};

// Every shape of a case: a baseline, an optimized variant with its own units and
// params, a reference, a tolerance, a custom check with details, and derived figures.
Case full_case(Fixture& f) {
  Case c;
  c.name = "typed";
  c.params = {{"size", 4}};
  c.units.items = 10;
  c.notes = {{"why", "a note"}};
  c.tolerance = Tolerance{1e-3, 1e-5};
  c.variants = {f.variant("base", 2e-3, 1), f.variant("fast", 1e-3, 2), f.variant("bound", 5e-4, 3)};
  c.variants[1].units = WorkUnits{0, 0, 20, "samples"};
  c.variants[1].params = {{"workers", 2}};
  c.variants[2].role = VariantRole::reference;
  c.verify = [](std::vector<Workload*>&) {
    CheckResult r;
    r.details = {{"checked", true}};
    return r;
  };
  c.derive = [](const CaseResult& r) -> json {
    const VariantResult* fast = r.variant("fast");
    return {{"fast_median", fast && fast->stats ? json(fast->stats->median) : json(nullptr)},
            {"missing", r.variant("nothing") == nullptr}};
  };
  return c;
}

// The results file a run writes, with these cases in one experiment.
std::string write_results(const std::string& name, const std::vector<json>& cases) {
  const std::string path = (std::filesystem::temp_directory_path() / ("optbench_test_" + name + ".json")).string();
  RunSettings settings;  // the results' config is the run's settings, serialized
  settings.profile = RunProfile::quick;
  settings.measure = measure_config_for(RunProfile::quick);
  const json config = settings;
  ResultsWriter w(path, capture_environment(DeviceKind::cpu, {"test"}), config);
  const auto idx = w.begin_experiment({{"name", "demo"},
                                       {"title", "t"},
                                       {"optimization", "o"},
                                       {"claims", json::array()},
                                       {"description", "d"},
                                       {"devices", {"cpu"}}});
  for (const auto& c : cases) w.add_case(idx, c);
  w.end_experiment(idx, ExperimentStatus::ok);
  w.finish(RunStatus::complete);
  return path;
}

}  // namespace

TEST(CaseResult, SerializedRunSatisfiesTheSchemaAndCarriesTheTypedFigures) {
  Fixture f;
  const CaseResult r = f.run(full_case(f));
  ASSERT_EQ(r.status, CaseStatus::ok);
  ASSERT_EQ(r.variants.size(), 3u);
  ASSERT_TRUE(r.comparisons.at(0).speedup);
  const json j = to_json(r);

  const std::string path = write_results("case_result", {j});
  EXPECT_TRUE(schema_valid(path)) << j.dump(1);
  std::filesystem::remove(path);

  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["isolation"], "none");
  EXPECT_EQ(j["params"]["size"], 4);
  EXPECT_EQ(j["variants"][0]["role"], "baseline");
  EXPECT_EQ(j["variants"][1]["role"], "optimized");
  EXPECT_EQ(j["variants"][2]["role"], "reference");
  EXPECT_EQ(j["variants"][1]["params"]["workers"], 2);
  EXPECT_FALSE(j["variants"][0].contains("params")) << "no params: none written";
  EXPECT_EQ(j["variants"][1]["units"]["items"], 20.0);
  EXPECT_DOUBLE_EQ(j["variants"][1]["stats"]["median"].get<double>(), r.variants[1].stats->median);
  EXPECT_EQ(j["variants"][1]["samples"]["host_s"].size(), r.variants[1].samples.host_s.size());
  EXPECT_TRUE(j["variants"][1]["samples"]["device_s"].is_null()) << "no events on the CPU";
  EXPECT_TRUE(j["variants"][1]["throttle"].is_null()) << "no NVML";
  EXPECT_DOUBLE_EQ(j["comparisons"][0]["speedup"].get<double>(), r.comparisons[0].speedup->value);
  EXPECT_EQ(j["comparisons"][0]["rounds"], r.comparisons[0].rounds);
  EXPECT_EQ(j["comparisons"][0]["rounds_floor"], 6);
  EXPECT_FALSE(j["comparisons"][0].contains("below_floor"));
  EXPECT_EQ(j["comparisons"][0]["verification"]["status"], "passed");
  EXPECT_EQ(j["comparisons"][0]["verification"]["details"]["checked"], true);
  EXPECT_EQ(j["comparisons"][0]["verification"]["rtol"], 1e-3);
  // Twice the work per step at half the time: a speedup of about 4 per unit of work.
  EXPECT_NEAR(j["comparisons"][0]["speedup"].get<double>(), 4.0, 0.2);
  EXPECT_DOUBLE_EQ(j["derived"]["fast_median"].get<double>(), r.variants[1].stats->median);
  EXPECT_EQ(j["derived"]["missing"], true);
  EXPECT_EQ(j["time_s"].size(), 6u) << "no cold_first_steps where the case takes none";
}

TEST(CaseResult, SkippedAndBudgetRefusedCasesSatisfyTheSchema) {
  Fixture f;
  Case skipped = full_case(f);
  skipped.skip_reason = "not here";
  const json s = to_json(f.run(skipped));
  EXPECT_EQ(s["status"], "skipped");
  EXPECT_EQ(s["reason"], "not here");
  EXPECT_FALSE(s.contains("variants"));

  Fixture late;
  late.clock.now = 1.0;
  const CaseResult refused = late.run(full_case(late), 0.5);
  EXPECT_EQ(refused.status, CaseStatus::not_run);
  EXPECT_EQ(refused.variants.at(0).status, VariantStatus::not_run);
  EXPECT_TRUE(is_budget_reason(refused.reason)) << refused.reason;
  const json n = to_json(refused);
  EXPECT_TRUE(n["variants"][0]["first_run_s"].is_null());
  EXPECT_TRUE(n["comparisons"][0]["speedup"].is_null());

  const std::string path = write_results("case_result_skips", {s, n});
  EXPECT_TRUE(schema_valid(path)) << s.dump(1) << n.dump(1);
  std::filesystem::remove(path);
}

// One spelling: every experiment status the harness writes parses back to itself,
// and the set is the schema's experiments[].status (repeats[].status: the same less running).
TEST(CaseResult, ExperimentStatusesAreTheSchemasOwn) {
  std::ifstream in(source_dir() + "/harness/results.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  const auto& want = schema.at("$defs").at("experiment").at("properties").at("status").at("enum");
  std::set<std::string> ours;
  for (ExperimentStatus s :
       {ExperimentStatus::running, ExperimentStatus::ok, ExperimentStatus::skipped, ExperimentStatus::failed,
        ExperimentStatus::interrupted, ExperimentStatus::not_run, ExperimentStatus::crashed, ExperimentStatus::hung}) {
    EXPECT_EQ(parse_experiment_status(to_string(s)), s);
    ours.insert(to_string(s));
  }
  EXPECT_EQ(ours, want.get<std::set<std::string>>());
  EXPECT_FALSE(parse_experiment_status("crash").has_value());
  EXPECT_TRUE(is_failure(ExperimentStatus::hung) && !is_failure(ExperimentStatus::not_run));
}

// A variant's breakdown crosses a worker's pipe as its JSON: read back, it is the
// same record; its statuses are the schema's, each spelled once.
TEST(CaseResult, BreakdownRecordRoundTripsAndItsStatusesAreTheSchemas) {
  std::ifstream in(source_dir() + "/harness/results.schema.json");
  const json schema = json::parse(in);
  const auto& want = schema.at("$defs").at("variant").at("properties").at("breakdown").at("properties").at("status");
  std::set<std::string> ours;
  profiling::BreakdownFigures figures;
  figures.steps = 4;
  figures.window = profiling::WindowRecord{};
  figures.host_ops_while_idle_top = std::vector<profiling::RankedName>{{"aten::item", std::nullopt, 1e-3, 0.5}};
  figures.device_events = 3;
  figures.trace = "t.json";
  for (const BreakdownRecord& b : {BreakdownRecord{BreakdownStatus::ok, "", figures},
                                   BreakdownRecord::skipped("the budget"), BreakdownRecord::failed("CUPTI")}) {
    const json j = to_json(b);
    EXPECT_EQ(j["status"], to_string(b.status));
    const BreakdownRecord back = breakdown_record_from_json(j);
    EXPECT_EQ(back.status, b.status);
    EXPECT_EQ(back.reason, b.reason);
    EXPECT_EQ(profiling::to_json(back.figures), profiling::to_json(b.figures));
    ours.insert(to_string(b.status));
  }
  EXPECT_EQ(ours, want.at("enum").get<std::set<std::string>>());
  // Every figure it writes, optional ones included, is a key the schema defines.
  const json& keys = schema.at("$defs").at("variant").at("properties").at("breakdown").at("properties");
  const json written = to_json(BreakdownRecord{BreakdownStatus::ok, "", figures});
  for (const auto& [key, value] : written.items()) EXPECT_TRUE(keys.contains(key)) << key;
  EXPECT_EQ(to_json(BreakdownRecord::skipped("why"))["reason"], "why");
  EXPECT_THROW(breakdown_record_from_json({{"status", "partly"}}), std::invalid_argument);
}
