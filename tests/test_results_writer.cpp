#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/environment.h"
#include "harness/results_writer.h"
#include "harness/run_settings.h"
#include "tests/schema_check.h"

using optbench::testing::schema_valid;

using namespace optbench;
using json = nlohmann::json;

namespace {

json read(const std::string& p) {
  std::ifstream f(p);
  return json::parse(f);
}

json minimal_config() {
  RunSettings s;
  s.profile = RunProfile::quick;
  s.measure = measure_config_for(RunProfile::quick);
  return s;
}

json demo_experiment() {
  return {{"name", "demo"},          {"title", "t"},       {"optimization", "o"},
          {"claims", json::array()}, {"description", "d"}, {"devices", {"cpu"}}};
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("optbench_test_" + name + ".json")).string();
}

}  // namespace

TEST(ResultsWriter, FileIsCompleteAndValidAfterEveryStep) {
  const std::string path = temp_path("steps");
  ResultsWriter w(path, capture_environment(DeviceKind::cpu, {"test"}), minimal_config());
  EXPECT_EQ(read(path)["status"], "running");
  EXPECT_TRUE(schema_valid(path));

  const auto idx = w.begin_experiment(demo_experiment());
  EXPECT_EQ(read(path)["experiments"][0]["status"], "running");
  EXPECT_TRUE(schema_valid(path));

  w.add_case(idx, {{"name", "c"}, {"params", json::object()}, {"status", "skipped"}, {"reason", "why"}});
  EXPECT_EQ(read(path)["experiments"][0]["cases"].size(), 1u);
  w.end_experiment(idx, ExperimentStatus::ok);
  w.finish(RunStatus::complete);
  EXPECT_EQ(read(path)["status"], "complete");
  EXPECT_TRUE(schema_valid(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove(path);
}

// A record, once written, is never changed: a case's further processes are
// records of their own beside it, and an experiment's fields are added once.
TEST(ResultsWriter, RecordsAreWrittenOnce) {
  const std::string path = temp_path("once");
  ResultsWriter w(path, capture_environment(DeviceKind::cpu, {"test"}), minimal_config());
  const auto idx = w.begin_experiment(demo_experiment());
  const json c = {{"name", "c"}, {"params", json::object()}, {"status", "skipped"}, {"reason", "why"}};
  w.add_case(idx, c);
  w.add_repeats(idx, {{{"process", 1}, {"case", "c"}, {"status", "ok"}, {"comparisons", json::array()}}});
  w.add_fields(idx, {{"processes", {{"ran", 2}, {"stopped", "max_processes"}}}, {"estimates", json::array()}});
  EXPECT_THROW(w.add_fields(idx, {{"estimates", json::array()}}), std::logic_error);
  w.end_experiment(idx, ExperimentStatus::ok, "", 1.5);
  EXPECT_THROW(w.end_experiment(idx, ExperimentStatus::ok, "", 2.5), std::logic_error);
  w.finish(RunStatus::complete);
  const json e = read(path)["experiments"][0];
  EXPECT_EQ(e["cases"][0], c);
  EXPECT_EQ(e["repeats"].size(), 1u);
  EXPECT_EQ(e["wall_s"], 1.5);
  EXPECT_TRUE(schema_valid(path));
  std::filesystem::remove(path);
}

TEST(ResultsWriter, SchemaRejectsAForeignDocument) {
  const std::string path = temp_path("foreign");
  std::ofstream(path) << R"({"schema": "optbench-results", "schema_version": 1, "status": "complete"})";
  EXPECT_FALSE(schema_valid(path));
  std::filesystem::remove(path);
}

TEST(ResultsWriter, UnwritablePathFailsAtOnce) {
  EXPECT_THROW(ResultsWriter("/nonexistent-dir/x.json", json::object(), minimal_config()), std::runtime_error);
}

TEST(Environment, CarriesTheRequiredKeys) {
  const json env = capture_environment(DeviceKind::cpu, {"optbench", "env"});
  for (const char* key : {"date", "git", "host", "os", "cpu", "libtorch", "numerics", "cuda", "nvml", "command_line"})
    EXPECT_TRUE(env.contains(key)) << key;
  EXPECT_EQ(env["command_line"], "optbench env");
  EXPECT_FALSE(env["libtorch"]["version"].get<std::string>().empty());
}
