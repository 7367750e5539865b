// The Python twins' client (workloads/python/python_twin.h) against the build's
// Python: a workload's steps and output come back over the pipe, and a Python
// that cannot build or step the workload is a clear error naming what went wrong.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "harness/build_info.h"
#include "workloads/python/python_twin.h"

using namespace optbench;
using namespace optbench::workloads;
using json = nlohmann::json;

namespace {

json adamw_spec(const std::string& impl) {
  return {{"family", "adamw_step"},
          {"inner_steps", 2},
          {"device", "cpu"},
          {"shapes", {{3, 4}, {4}}},
          {"impl", impl},
          {"lr", 1e-3},
          {"beta1", 0.9},
          {"beta2", 0.999},
          {"eps", 1e-8},
          {"weight_decay", 1e-2},
          {"check_steps", 5}};
}

std::string error_of(const std::string& python, const json& spec, bool step = false) {
  try {
    PythonTwin t(python, spec);
    if (step) t.step();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PythonTwin, StepsAndTheWholeOutputComeBack) {
  PythonTwin t(python_executable(), adamw_spec("per_tensor"));
  t.step();
  t.step();
  const at::Tensor out = t.output();
  ASSERT_EQ(out.numel(), 3 * 4 + 4);  // every parameter, after the check steps
  EXPECT_TRUE(out.isfinite().all().item<bool>());
  const json m = t.metrics();
  EXPECT_NE(m.at("python_torch").get<std::string>(), "");
  EXPECT_GT(m.at("pipe_round_trip_us").get<double>(), 0);
  EXPECT_EQ(m.at("inner_steps"), 2);
  EXPECT_EQ(m.at("parameter_tensors"), 2);
  // The output is taken from a fresh start, not after the timed steps: the same again.
  EXPECT_TRUE(at::equal(out, t.output()));
}

TEST(PythonTwin, AnUnknownFamilyIsAClearError) {
  json spec = adamw_spec("per_tensor");
  spec["family"] = "no_such_family";
  const std::string e = error_of(python_executable(), spec);
  EXPECT_NE(e.find("did not start"), std::string::npos) << e;
  EXPECT_NE(e.find("no_such_family"), std::string::npos) << e;  // the KeyError, the traceback's last line
}

TEST(PythonTwin, AnErrorInTheWorkloadIsAClearError) {
  const std::string e = error_of(python_executable(), adamw_spec("no_such_impl"));
  EXPECT_NE(e.find("unknown AdamW implementation"), std::string::npos) << e;
}

// Issue 40: a twin killed mid-run was "does not read its requests", naming
// neither its death nor the signal. Its error now says how it ended, and the
// next twin still starts (from the same zygote).
TEST(PythonTwin, ATwinThatDiesIsNamedWithItsSignal) {
  PythonTwin t(python_executable(), adamw_spec("per_tensor"));
  t.step();
  ASSERT_EQ(::kill(t.pid(), SIGKILL), 0);
  std::string e;
  try {
    t.step();
  } catch (const std::exception& ex) {
    e = ex.what();
  }
  EXPECT_NE(e.find("killed by signal 9 (SIGKILL)"), std::string::npos) << e;
  PythonTwin next(python_executable(), adamw_spec("per_tensor"));
  EXPECT_NE(next.pid(), t.pid());
  next.step();
}

// Twins are forked from one Python that imported torch (twin_zygote.h), each a
// process of its own, apart from this one and from each other.
TEST(PythonTwin, TwinsAreProcessesOfTheirOwnFromOneZygote) {
  PythonTwin a(python_executable(), adamw_spec("per_tensor"));
  PythonTwin b(python_executable(), adamw_spec("foreach"));
  EXPECT_NE(a.pid(), b.pid());
  EXPECT_NE(a.pid(), ::getpid());
  a.step();
  b.step();
  EXPECT_TRUE(at::equal(a.output(), a.output()));
}

TEST(PythonTwin, APythonThatCannotStartIsAClearError) {
  const std::string e = error_of("/bin/false", adamw_spec("per_tensor"));
  EXPECT_NE(e.find("did not start (/bin/false)"), std::string::npos) << e;
  const std::string missing = error_of("/nonexistent/python3", adamw_spec("per_tensor"));
  EXPECT_NE(missing.find("did not start (/nonexistent/python3)"), std::string::npos) << missing;
}
