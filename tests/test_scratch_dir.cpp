// Scratch folders (harness/scratch_dir.h): a folder whose owner ended without
// removing it (a second Ctrl-C, SIGKILL) is removed by the next one made beside
// it; a live owner's folder, and anything not a scratch folder, is left alone.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "harness/build_info.h"
#include "harness/registry.h"
#include "harness/scratch_dir.h"
#include "tests/scoped_env.h"

using namespace optbench;
namespace fs = std::filesystem;

namespace {

// A pid that surely belongs to no process now: a child that has exited and been reaped.
pid_t ended_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

fs::path make_folder(const fs::path& parent, const std::string& name) {
  const fs::path p = parent / name;
  fs::create_directories(p / "inner");
  std::ofstream(p / "inner" / "image.bin") << "pixels";
  return p;
}

// Each test's own TMPDIR, where its scratch folders are made.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "scratch-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    tmpdir_.emplace("TMPDIR", root_.string());
  }
  void TearDown() override {
    tmpdir_.reset();
    fs::remove_all(root_);
  }
  fs::path root_;
  std::optional<optbench::testing::ScopedEnv> tmpdir_;
};

TEST_F(ScratchDirTest, TheNextScratchFolderRemovesThoseWhoseOwnerEnded) {
  const fs::path orphan = make_folder(root_, "optbench-scratch-" + std::to_string(ended_pid()) + "-AbC123");
  const fs::path live = make_folder(root_, "optbench-scratch-" + std::to_string(::getppid()) + "-XyZ789");
  const fs::path older = make_folder(root_, "optbench-scratch-Qw12Er");  // before owners were named
  const fs::path other = make_folder(root_, "optbench-scratch-12x-notours");
  {
    const ScratchDir s;
    EXPECT_EQ(fs::path(s.path()).parent_path(), root_);
    EXPECT_EQ(fs::path(s.path()).filename().string().rfind("optbench-scratch-" + std::to_string(::getpid()) + "-", 0),
              0u);
    EXPECT_FALSE(fs::exists(orphan));
    EXPECT_TRUE(fs::exists(live / "inner" / "image.bin"));
    EXPECT_TRUE(fs::exists(older) && fs::exists(other));
    EXPECT_TRUE(fs::is_directory(s.path()));
  }
  EXPECT_TRUE(fs::exists(live) && fs::exists(older) && fs::exists(other));
  EXPECT_EQ(std::distance(fs::directory_iterator(root_), fs::directory_iterator()), 3);
}

TEST_F(ScratchDirTest, OnlyOrphansAreCounted) {
  make_folder(root_, "optbench-scratch-" + std::to_string(ended_pid()) + "-a");
  make_folder(root_, "optbench-scratch-" + std::to_string(ended_pid()) + "-b");
  make_folder(root_, "optbench-scratch-" + std::to_string(::getpid()) + "-c");
  EXPECT_EQ(remove_orphaned_scratch(root_.string()), 2);
  EXPECT_EQ(remove_orphaned_scratch(root_.string()), 0);
  EXPECT_EQ(remove_orphaned_scratch((root_ / "absent").string()), 0);
}

}  // namespace

// storage_reads evicts its files' pages and reads them back: on a file system in
// RAM that is a memory read, so it declines to run there, before writing a file.
TEST(ScratchDirRam, StorageReadsDeclinesAFileSystemInRam) {
  if (!on_ram_filesystem("/dev/shm")) GTEST_SKIP() << "/dev/shm is not tmpfs here";
  const Experiment* e = Registry::instance().match("^storage_reads$").at(0);
  const RunContext ctx{DeviceKind::cpu, RunProfile::quick};
  std::string tmpl = "/dev/shm/optbench-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  {
    const optbench::testing::ScopedEnv scratch(kScratchEnv, tmpl);
    const std::string why = e->unsupported_reason(ctx);
    EXPECT_NE(why.find("a file system in RAM (tmpfs)"), std::string::npos) << why;
  }
  EXPECT_TRUE(fs::is_empty(tmpl));  // nothing written
  fs::remove_all(tmpl);
  if (!on_ram_filesystem(source_dir())) {  // on a disk it runs
    const optbench::testing::ScopedEnv scratch(kScratchEnv, source_dir());
    EXPECT_EQ(e->unsupported_reason(ctx), "");
  }
}
