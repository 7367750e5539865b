// harness/malloc_regime.h: with the thresholds pinned, a step that allocates
// and frees 64 MiB of temporaries (four 16 MiB blocks, as per_tensor AdamW over
// 2048x2048 parameters does) takes no page faults once warm. glibc's own
// dynamic thresholds trim those blocks at each free and fault them in again on
// the next step in some processes (16,320 faults a step) and not in others.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "harness/malloc_regime.h"

namespace optbench {
namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Faults per step of the last `steps` of `warm + steps` steps.
long faults_per_step(int warm, int steps) {
  constexpr std::size_t kBlock = 16u << 20;
  long before = 0;
  for (int s = 0; s < warm + steps; ++s) {
    if (s == warm) before = minor_faults();
    void* p[4];
    for (auto& b : p) {
      b = std::malloc(kBlock);
      std::memset(b, s, kBlock);
    }
    for (auto* b : p) std::free(b);
  }
  return (minor_faults() - before) / steps;
}

// Runs the steps in a forked process (a fresh copy of this one's heap, so the
// other tests' allocations and this test's own do not carry over): its faults
// per step as the exit status, capped at 255.
int forked_faults_per_step(bool pin) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (pin) pin_malloc_regime();
    _exit(static_cast<int>(std::min<long>(faults_per_step(3, 5), 255)));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(MallocRegime, PinnedAWarmStepsTemporariesTakeNoPageFaults) {
  if (std::getenv("GLIBC_TUNABLES") || std::getenv("MALLOC_TRIM_THRESHOLD_") || std::getenv("MALLOC_MMAP_THRESHOLD_"))
    GTEST_SKIP() << "this environment sets malloc tunables of its own";
  const int unpinned = forked_faults_per_step(false);
  const int pinned = forked_faults_per_step(true);
  RecordProperty("unpinned_faults_per_step", unpinned);
  EXPECT_LE(pinned, 2) << "64 MiB of a step's temporaries is 16,384 pages; unpinned here: " << unpinned;
}

TEST(MallocRegime, IsRecordedAndPassedToChildren) {
  if (std::getenv("GLIBC_TUNABLES") && !std::getenv("OPTBENCH_MALLOC_PINNED"))
    GTEST_SKIP() << "this environment sets malloc tunables of its own";
  const MallocRegime& r = pin_malloc_regime();
  EXPECT_EQ(r.set_by, "optbench");
  const char* passed = std::getenv("GLIBC_TUNABLES");
  ASSERT_NE(passed, nullptr);
  EXPECT_NE(std::string(passed).find("glibc.malloc.trim_threshold=1073741824"), std::string::npos) << passed;
  EXPECT_EQ(to_json(r)["glibc_tunables"], passed);
}

}  // namespace
}  // namespace optbench
