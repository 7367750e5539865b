#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

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

namespace {

// Words on /proc/cpuinfo's first "flags" (x86) or "Features" (ARM) line.
std::set<std::string> cpuinfo_flags() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("flags", 0) != 0 && line.rfind("Features", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
  }
  return {};
}

}  // namespace

TEST(Environment, RecordsTheInstructionSetAndTorchsKernelLevel) {
  const json cpu = capture_environment(DeviceKind::cpu, {"optbench", "env"})["cpu"];
  ASSERT_TRUE(cpu.contains("isa"));
  ASSERT_TRUE(cpu.contains("torch_capability"));
  const std::set<std::string> flags = cpuinfo_flags();
  if (flags.empty()) {
    EXPECT_TRUE(cpu["isa"].is_null());  // nothing to read: unknown, never a guess
  } else {
    ASSERT_TRUE(cpu["isa"].is_array());
    for (const auto& f : cpu["isa"]) EXPECT_TRUE(flags.count(f.get<std::string>())) << f;
  }
  // LibTorch always knows the level it dispatches to (DEFAULT where no extension helps)
  ASSERT_TRUE(cpu["torch_capability"].is_string());
  EXPECT_FALSE(cpu["torch_capability"].get<std::string>().empty());
}

TEST(Environment, IsaListsOnlyTheKernelChoosingFlagsInOrder) {
  std::istringstream x86(
      "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n"
      "flags\t\t: fpu sse2 amx_int8 avx2 avx512f avx512bw avx512_bf16 amx_tile popcnt\n"
      "vmx flags\t: avx512_fp16\nprocessor\t: 1\nflags\t\t: fpu avx2\n");
  EXPECT_EQ(cpu_isa(x86), json({"avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_int8"}));
  std::istringstream arm("processor\t: 0\nFeatures\t: fp asimd evtstrm aes sve bf16 i8mm\n");
  EXPECT_EQ(cpu_isa(arm), json({"asimd", "i8mm", "bf16", "sve"}));
  std::istringstream old("processor\t: 0\nflags\t\t: fpu sse2\n");
  EXPECT_EQ(cpu_isa(old), json::array());  // read, and none of the listed: not unknown
  std::istringstream none("processor\t: 0\n");
  EXPECT_TRUE(cpu_isa(none).is_null());
}
