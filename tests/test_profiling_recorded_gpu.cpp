// The device-timeline breakdown on a GPU trace recorded elsewhere (AlexNet steps
// on an A100, from HolisticTraceAnalysis's test data; tests/data/
// recorded_a100_alexnet_trace.json says where from), so the CUDA arithmetic is
// checked on a CPU-only machine against sums taken straight from the file:
// device time is conserved across categories, every kernel has its launch, the
// HTA shares add up, and the copies are the H2D ones the trace holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "harness/profiling/breakdown.h"
#include "harness/profiling/chrome_trace.h"

using namespace optbench::profiling;
using json = nlohmann::json;

namespace {

json load(const char* file) {
  std::ifstream in(std::string(OPTBENCH_TEST_DATA) + "/" + file);
  EXPECT_TRUE(in) << file;
  return json::parse(in);
}

TEST(ProfilingRecordedGpu, A100AlexNetTraceAddsUp) {
  const json trace = load("recorded_a100_alexnet_trace.json");
  const auto events = events_from_chrome_trace(trace);
  ASSERT_FALSE(events.empty());
  // Independent figures from the file itself (microseconds).
  double device_us = 0;
  int kernels = 0, launch_calls = 0, h2d = 0, device_events = 0, aten_ops = 0;
  for (const auto& e : trace["traceEvents"]) {
    const std::string cat = e["cat"];
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      device_us += e["dur"].get<double>();
      ++device_events;
    }
    kernels += cat == "kernel";
    aten_ops += cat == "cpu_op" && e["name"].get<std::string>().rfind("aten::", 0) == 0;
    launch_calls += cat == "cuda_runtime" && e["name"] == "cudaLaunchKernel";
    h2d += cat == "gpu_memcpy" && e["name"].get<std::string>().rfind("Memcpy HtoD", 0) == 0;
  }
  ASSERT_GT(kernels, 0);
  ASSERT_GT(h2d, 0);
  Window w;
  w.start_ns = std::min_element(events.begin(), events.end(), [](auto& a, auto& b) {
                 return a.start_ns < b.start_ns;
               })->start_ns;
  w.end_ns =
      std::max_element(events.begin(), events.end(), [](auto& a, auto& b) { return a.end_ns < b.end_ns; })->end_ns;
  w.steps = 1;
  w.device_timeline = true;
  const json b = to_json(breakdown(events, w));

  double categorised = 0;
  for (const auto& [k, v] : b["categories_s"].items()) categorised += v.get<double>();
  EXPECT_NEAR(categorised * 1e6, device_us, 1e-6 * device_us + 0.01);  // nothing lost, nothing counted twice
  EXPECT_EQ(b["device_events"], device_events);
  EXPECT_DOUBLE_EQ(b["launches_per_step"].get<double>(), launch_calls);
  EXPECT_EQ(launch_calls, kernels);  // no CUDA graph: one launch call per kernel
  // The counters: launches as above, every ATen operator once (its other CPU
  // records, "detach", are no operator calls).
  EXPECT_DOUBLE_EQ(b["counters"]["kernel_launches_per_step"].get<double>(), launch_calls);
  EXPECT_DOUBLE_EQ(b["counters"]["op_calls_per_step"].get<double>(), aten_ops);
  // The median launch call: 9 us in the file, though one call (a module loaded
  // lazily) took 3.06 s and would make a mean of 39 ms.
  EXPECT_NEAR(b["host_s_per_launch"].get<double>(), 9e-6, 0.5e-6);
  const auto& sh = b["shares"];
  EXPECT_NEAR(sh["compute"].get<double>() + sh["non_compute"].get<double>() + sh["idle"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(b["busy_s"].get<double>() + b["idle_s"].get<double>(), b["window_step_s"].get<double>(), 1e-12);
  EXPECT_LE(b["busy_s"].get<double>() * 1e6, device_us + 0.01);
  const double overlap = b["copy_overlap"].get<double>();
  EXPECT_GE(overlap, 0.0);
  EXPECT_LE(overlap, 1.0);
  for (const char* k : {"conv", "gemm", "elementwise", "memcpy_h2d"}) EXPECT_TRUE(b["categories_s"].contains(k)) << k;
  for (const char* k : {"memcpy_d2h", "collective", "memcpy_host"}) EXPECT_FALSE(b["categories_s"].contains(k)) << k;
  // Inference with pageable copies and stream syncs: the GPU idles while the host works.
  EXPECT_GT(sh["idle"].get<double>(), 0.0);
  EXPECT_GT(b["host_ops_while_idle_s"].get<double>(), 0.0);
  EXPECT_FALSE(b["host_ops_while_idle_top"].empty());
}

// The reader keeps what the breakdown needs and drops the rest: kinds by "cat",
// launches by name (a driver launch flagged), user scopes as annotations,
// microseconds to nanoseconds.
TEST(ProfilingRecordedGpu, EventsFromATraceKeepTheirKinds) {
  const json trace = {{"traceEvents",
                       {{{"ph", "X"},
                         {"cat", "kernel"},
                         {"name", "ampere_sgemm_128x64_nn"},
                         {"ts", 10.0},
                         {"dur", 5.0},
                         {"pid", 0},
                         {"tid", 7}},
                        {{"ph", "X"},
                         {"cat", "cuda_driver"},
                         {"name", "cuLaunchKernel"},
                         {"ts", 9.0},
                         {"dur", 0.5},
                         {"pid", 1},
                         {"tid", 2}},
                        {{"ph", "X"},
                         {"cat", "cuda_runtime"},
                         {"name", "cudaMemcpyAsync"},
                         {"ts", 9.0},
                         {"dur", 0.5},
                         {"pid", 1},
                         {"tid", "2"}},
                        {{"ph", "i"}, {"cat", "cpu_instant_event"}, {"name", "x"}, {"ts", 9.0}},
                        {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "w"}, {"ts", 0.0}, {"dur", 20.0}}}}};
  const auto ev = events_from_chrome_trace(trace);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].kind, EventKind::kernel);
  EXPECT_EQ(ev[0].start_ns, 10000u);
  EXPECT_EQ(ev[0].end_ns, 15000u);
  EXPECT_EQ(ev[1].kind, EventKind::launch);
  EXPECT_TRUE(ev[1].driver);
  EXPECT_EQ(ev[2].kind, EventKind::runtime);
  EXPECT_NE(ev[1].thread, ev[2].thread);  // tid 2 and "2" are different threads' spellings; kept apart
  EXPECT_EQ(ev[3].kind, EventKind::annotation);
  EXPECT_EQ(ev[3].end_ns, 20000u);
}

}  // namespace
