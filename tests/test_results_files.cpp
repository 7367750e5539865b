// The results file under hostile conditions: a symbolic link planted where the
// temporary file goes, a second run on the same file, a write that fails
// midway, temporary files a killed run left behind.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/results_writer.h"

using namespace optbench;
using json = nlohmann::json;

namespace {

// A fresh folder per test, removed with everything in it.
struct Folder {
  std::string path;
  Folder() {
    char tmpl[] = "/tmp/optbench_files_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~Folder() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  // Names in the folder, sorted, one per line.
  std::string listing() const {
    std::string cmd = "ls -A '" + path + "'";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[512];
      while (std::fgets(buf, sizeof buf, p)) out += buf;
      ::pclose(p);
    }
    return out;
  }
};

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

json experiment_info() {
  return {{"name", "demo"},          {"title", "t"},       {"optimization", "o"},
          {"claims", json::array()}, {"description", "d"}, {"devices", {"cpu"}}};
}

json a_case(const std::string& name, std::size_t padding = 0) {
  return {{"name", name}, {"params", {{"padding", std::string(padding, 'x')}}}, {"status", "skipped"}, {"reason", "r"}};
}

}  // namespace

TEST(ResultsFiles, ASymlinkPlantedAtTheTemporaryNameIsNeverFollowed) {
  Folder dir;
  const std::string out = dir / "r.json", victim = dir / "victim";
  std::ofstream(victim) << "precious";
  ResultsWriter w(out, json::object(), json::object());
  // Planted after the writer started, at the names a rewrite would use: the
  // old fixed "<out>.tmp" and this process's "<out>.tmp-<pid>".
  ASSERT_EQ(::symlink(victim.c_str(), (out + ".tmp").c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), (out + ".tmp-" + std::to_string(::getpid())).c_str()), 0);
  const auto idx = w.begin_experiment(experiment_info());
  w.add_case(idx, a_case("c"));
  w.finish(RunStatus::complete);
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_EQ(json::parse(slurp(out))["status"], "complete");
  char target[256] = {};
  EXPECT_LT(::readlink(out.c_str(), target, sizeof target), 0) << "the results file became a link";
}

TEST(ResultsFiles, ASecondWriterOfTheSameFileIsRefusedUntilTheFirstIsDone) {
  Folder dir;
  const std::string out = dir / "r.json";
  {
    ResultsWriter first(out, json::object(), {{"run", "first"}});
    first.begin_experiment(experiment_info());
    try {
      ResultsWriter second(out, json::object(), {{"run", "second"}});
      FAIL() << "a second writer took a file the first still writes";
    } catch (const OutputBusy& e) {
      EXPECT_NE(std::string(e.what()).find("another optbench run"), std::string::npos) << e.what();
    }
    first.finish(RunStatus::complete);
    EXPECT_EQ(json::parse(slurp(out))["config"]["run"], "first");  // untouched by the refused one
  }
  ResultsWriter third(out, json::object(), {{"run", "third"}});  // free again
  EXPECT_EQ(json::parse(slurp(out))["config"]["run"], "third");
}

TEST(ResultsFiles, AFailedWriteKeepsTheLastVersionAndLeavesNoTemporaryFile) {
  Folder dir;
  const std::string out = dir / "r.json";
  ResultsWriter w(out, json::object(), json::object());
  const auto idx = w.begin_experiment(experiment_info());
  w.add_case(idx, a_case("kept"));
  const std::string last_good = slurp(out);
  // A file size limit stands in for a full disk: write() fails with EFBIG as
  // it would with ENOSPC (and SIGXFSZ, ignored as optbench does, kills nothing).
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = last_good.size() + 1000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    w.add_case(idx, a_case("too_big", 100000));
  } catch (const WriteError&) {
    threw = true;
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw) << "a write past the limit did not fail";
  EXPECT_EQ(slurp(out), last_good);
  EXPECT_EQ(dir.listing(), "r.json\n");
}

TEST(ResultsFiles, TemporaryFilesAKilledRunLeftAreRemovedOthersKept) {
  Folder dir;
  const std::string out = dir / "r.json", victim = dir / "victim";
  std::ofstream(victim) << "precious";
  std::ofstream(out + ".tmp-12345") << "{";
  std::ofstream(out + ".tmp-12345-2") << "{";
  ASSERT_EQ(::symlink(victim.c_str(), (out + ".tmp-777").c_str()), 0);
  std::ofstream(out + ".tmp-notes") << "someone else's";
  ResultsWriter w(out, json::object(), json::object());
  EXPECT_EQ(dir.listing(), "r.json\nr.json.tmp-notes\nvictim\n");
  EXPECT_EQ(slurp(victim), "precious");
}
