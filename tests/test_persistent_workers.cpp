// The persistent_workers experiment's loops on the CPU: every epoch delivers
// every sample with a new loader or a kept one, in LibTorch's loader and in
// Python's (run by the configured Python), and a Python that cannot start the
// loader is a clear error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/build_info.h"
#include "workloads/data/epoch_loops.h"

using namespace optbench;
using namespace optbench::workloads;

namespace {

EpochSpec small(bool persistent) {
  EpochSpec s;
  s.workers = 2;
  s.batches = 3;
  s.batch = 4;
  s.image = {16, 12, 10};
  s.persistent = persistent;
  return s;
}

}  // namespace

TEST(PersistentWorkers, ThreadLoopsDeliverEveryEpoch) {
  for (bool persistent : {false, true}) {
    ThreadEpochs loop(small(persistent));
    for (int i = 0; i < 3; ++i) loop.step();
    EXPECT_EQ(loop.epochs(), 3);
    EXPECT_EQ(loop.incomplete_epochs(), 0);
    std::vector<Workload*> ws = {&loop};
    EXPECT_EQ(verify_epochs(ws).problem, "");
  }
}

TEST(PersistentWorkers, PythonLoopsDeliverEveryEpoch) {
  for (bool persistent : {false, true}) {
    PythonEpochs loop(small(persistent), python_executable());
    loop.step();
    loop.step();
    EXPECT_EQ(loop.incomplete_epochs(), 0);
    EXPECT_NE(loop.metrics()["python_torch"].get<std::string>(), "");
    std::vector<Workload*> ws = {&loop};
    EXPECT_EQ(verify_epochs(ws).problem, "");
  }
}

// `python -c` puts the working directory first on sys.path: a select.py there
// (one was in /tmp on the CI-class VM) shadowed the standard library's and the
// loader did not start. The script leaves the working directory out.
TEST(PersistentWorkers, AModuleInTheWorkingDirectoryDoesNotShadowTheLibrary) {
  const auto dir = std::filesystem::temp_directory_path() / ("optbench_cwd_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "select.py") << "raise ImportError('the select.py of the working directory')\n";
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  std::string error;
  try {
    PythonEpochs loop(small(true), python_executable());
    loop.step();
    EXPECT_EQ(loop.incomplete_epochs(), 0);
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::filesystem::current_path(here);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(error, "");
}

TEST(PersistentWorkers, APythonWithoutTheLoaderIsAClearError) {
  try {
    PythonEpochs loop(small(true), "/bin/false");
    FAIL() << "started";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("did not start"), std::string::npos) << e.what();
  }
}

TEST(PersistentWorkers, ALoopThatRanNoEpochIsNotVerified) {
  ThreadEpochs loop(small(false));
  std::vector<Workload*> ws = {&loop};
  EXPECT_EQ(verify_epochs(ws).problem, "no epoch was run");
}
