// The order of a timed sample (harness/sample_sequence.h), which the CUDA
// backend uses: NVML reads never fall between the two host clock reads of a
// host-timed (sync) sample, where they would add their latency to the time.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <string>
#include <vector>

#include "harness/sample_sequence.h"
#include "tests/fake_backend.h"

namespace optbench {
namespace {

std::vector<std::string> sequence(TimingMode mode, std::int64_t iters) {
  std::vector<std::string> log;
  double t = 0;
  SampleOps ops;
  ops.host_now = [&] {
    log.push_back("clock");
    return t;
  };
  ops.begin = [&] { log.push_back("begin"); };
  ops.step = [&] {
    log.push_back("step");
    t += 1;
  };
  ops.wait_step = [&] { log.push_back("wait_step"); };
  ops.end = [&] { log.push_back("end"); };
  ops.wait_end = [&] { log.push_back("wait_end"); };
  ops.telemetry = [&](Sample&) { log.push_back("telemetry"); };
  const Sample s = run_sample(ops, iters, mode);
  EXPECT_DOUBLE_EQ(s.host_s, 1.0);
  EXPECT_EQ(s.iters, iters);
  return log;
}

TEST(SampleSequence, SyncReadsTelemetryAfterTheTimedRegion) {
  EXPECT_EQ(sequence(TimingMode::sync, 2),
            (std::vector<std::string>{"begin", "clock", "step", "wait_step", "step", "wait_step", "end", "wait_end",
                                      "clock", "telemetry"}));
}

TEST(SampleSequence, BatchedReadsTelemetryAfterTheTimedRegion) {
  // Not while the batch runs: the host clock's region would hold the reads too.
  EXPECT_EQ(sequence(TimingMode::batched, 2),
            (std::vector<std::string>{"begin", "clock", "step", "step", "end", "wait_end", "clock", "telemetry"}));
}

// On the fake backend: NVML reads that take time (1 ms each here) leave a
// sample's host time exactly the steps' time, in either mode.
TEST(SampleSequence, SlowTelemetryDoesNotInflateASyncSample) {
  testing::SimClock clock;
  testing::FakeBackend backend(clock);
  int reads = 0;
  backend.set_smi([&](Sample& s) {
    clock.now += 1e-3;
    s.power_w = 100.0;
    ++reads;
  });
  for (TimingMode mode : {TimingMode::sync, TimingMode::batched}) {
    reads = 0;
    const Sample s = backend.time([&] { clock.now += 2e-3; }, 3, mode);
    EXPECT_EQ(reads, 1);
    ASSERT_TRUE(s.power_w.has_value());
    EXPECT_DOUBLE_EQ(s.host_s, 2e-3);
  }
}

}  // namespace
}  // namespace optbench

namespace optbench {
namespace {

// The CPU backend counts the page faults of a step that maps fresh memory each
// time (what glibc does for a temporary above its mmap threshold) and not of one
// that reuses its buffer.
TEST(SampleSequence, CpuBackendCountsFreshPagesPerStep) {
  auto backend = make_backend(DeviceKind::cpu);
  constexpr std::size_t kBytes = 4u << 20;  // 1024 pages of 4 kB
  auto fresh = [] {
    void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    madvise(p, kBytes, MADV_NOHUGEPAGE);  // 4 kB pages whatever the THP setting
    std::memset(p, 1, kBytes);
    munmap(p, kBytes);
  };
  std::vector<char> kept(kBytes, 0);
  auto reuse = [&] { std::memset(kept.data(), 1, kBytes); };
  const Sample a = backend->time(fresh, 4, TimingMode::sync);
  const Sample b = backend->time(reuse, 4, TimingMode::sync);
  ASSERT_TRUE(a.minor_faults.has_value());
  ASSERT_TRUE(b.minor_faults.has_value());
  EXPECT_GE(*a.minor_faults, 1000.0);  // every page of every step
  EXPECT_LT(*b.minor_faults, 50.0);
}

}  // namespace
}  // namespace optbench
