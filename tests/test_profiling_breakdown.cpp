// The breakdown's arithmetic on synthetic events, where every figure is known:
// categories, HolisticTraceAnalysis's compute / non-compute / idle shares, copies
// overlapping kernels, launches (a driver launch inside a runtime one counts
// once), host operators during device idle, self time of nested CPU operators,
// and the window's clipping.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/profiling/breakdown.h"

using namespace optbench::profiling;
using json = nlohmann::json;

namespace {

constexpr std::uint64_t ms = 1'000'000;  // ns

TraceEvent ev(const char* name, EventKind k, double from_ms, double to_ms, std::uint64_t thread = 1,
              bool driver = false) {
  TraceEvent e;
  e.name = name;
  e.kind = k;
  e.start_ns = static_cast<std::uint64_t>(from_ms * ms);
  e.end_ns = static_cast<std::uint64_t>(to_ms * ms);
  e.thread = thread;
  e.driver = driver;
  return e;
}

TEST(ProfilingBreakdown, DeviceWindowSharesOverlapAndLaunches) {
  const std::vector<TraceEvent> events = {
      ev("ampere_sgemm_128x64_nn", EventKind::kernel, 1, 4),
      ev("void at::native::vectorized_elementwise_kernel<4, AddFunctor>", EventKind::kernel, 4, 5),
      ev("Memcpy HtoD (Pinned -> Device)", EventKind::memcpy, 3, 6),  // 2 of its 3 ms under kernels
      ev("cudaLaunchKernel", EventKind::launch, 0.5, 0.6),
      ev("cuLaunchKernel", EventKind::launch, 0.52, 0.58, 1, true),  // inside the runtime call: not a launch
      ev("cudaLaunchKernel", EventKind::launch, 3.9, 4.0),
      ev("cuLaunchKernelEx", EventKind::launch, 7.0, 7.1, 2, true),  // alone: a launch (Triton, AOTI)
      ev("aten::item", EventKind::cpu_op, 6, 9),                     // the device idles meanwhile
      ev("ampere_sgemm_128x64_nn", EventKind::kernel, 11, 12),       // after the window
  };
  Window w{0, 10 * ms, 2, true, 0.005, 0.25};
  const json b = to_json(breakdown(events, w));
  EXPECT_EQ(b["device"], "cuda");
  EXPECT_EQ(b["device_events"], 3);  // the kernel after the window is not counted
  EXPECT_NEAR(b["window_step_s"].get<double>(), 5e-3, 1e-12);
  EXPECT_NEAR(b["categories_s"]["gemm"].get<double>(), 1.5e-3, 1e-12);
  EXPECT_NEAR(b["categories_s"]["elementwise"].get<double>(), 0.5e-3, 1e-12);
  EXPECT_NEAR(b["categories_s"]["memcpy_h2d"].get<double>(), 1.5e-3, 1e-12);
  EXPECT_NEAR(b["busy_s"].get<double>(), 2.5e-3, 1e-12);
  EXPECT_NEAR(b["idle_s"].get<double>(), 2.5e-3, 1e-12);
  EXPECT_NEAR(b["shares"]["compute"].get<double>(), 0.4, 1e-12);
  EXPECT_NEAR(b["shares"]["non_compute"].get<double>(), 0.1, 1e-12);
  EXPECT_NEAR(b["shares"]["idle"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(b["copy_overlap"].get<double>(), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(b["launches_per_step"].get<double>(), 1.5, 1e-12);
  EXPECT_NEAR(b["host_s_per_launch"].get<double>(), 0.1e-3, 1e-9);
  EXPECT_NEAR(b["host_ops_while_idle_s"].get<double>(), 1.5e-3, 1e-12);
  EXPECT_EQ(b["host_ops_while_idle_top"][0]["name"], "aten::item");
  const auto gemm = std::find_if(b["top"].begin(), b["top"].end(),
                                 [](const json& t) { return t["name"] == "ampere_sgemm_128x64_nn"; });
  ASSERT_NE(gemm, b["top"].end());
  EXPECT_NEAR((*gemm)["share"].get<double>(), 3.0 / 7.0, 1e-12);  // 3 of the 7 ms of device activity
  EXPECT_EQ((*gemm)["category"], "gemm");
  EXPECT_NEAR(b["overhead"].get<double>(), 0.0, 1e-9);
  EXPECT_TRUE(b["agrees"].get<bool>());
}

TEST(ProfilingBreakdown, CpuSelfTimeCountsNestedOperatorsOnce) {
  const std::vector<TraceEvent> events = {
      ev("aten::linear", EventKind::cpu_op, 0, 10), ev("aten::addmm", EventKind::cpu_op, 1, 9),
      ev("aten::relu", EventKind::cpu_op, 10, 12),  ev("aten::clamp_min", EventKind::cpu_op, 10.5, 11.5),
      ev("aten::copy_", EventKind::cpu_op, 14, 15), ev("my_unknown_op", EventKind::cpu_op, 15, 16),
  };
  Window w{0, 20 * ms, 1, false, 0.030, 0.25};
  const json b = to_json(breakdown(events, w));
  EXPECT_EQ(b["device"], "cpu");
  EXPECT_NEAR(b["categories_s"]["gemm"].get<double>(), 10e-3, 1e-12);  // linear's 2 ms self + addmm's 8 ms
  EXPECT_NEAR(b["categories_s"]["elementwise"].get<double>(), 2e-3, 1e-12);
  EXPECT_NEAR(b["categories_s"]["memcpy_host"].get<double>(), 1e-3, 1e-12);
  EXPECT_NEAR(b["categories_s"]["other"].get<double>(), 1e-3, 1e-12);
  EXPECT_NEAR(b["idle_s"].get<double>(), 6e-3, 1e-12);  // 20 ms less 14 ms in operators
  EXPECT_EQ(b["other_names"], json::array({"my_unknown_op"}));
  // No device timeline, no device figures: null, not zero.
  for (const char* k : {"launches_per_step", "host_s_per_launch", "copy_overlap", "host_ops_while_idle_s"})
    EXPECT_TRUE(b[k].is_null()) << k;
  for (const char* k : {"memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memset", "collective"})
    EXPECT_FALSE(b["categories_s"].contains(k)) << k;
  EXPECT_NEAR(b["overhead"].get<double>(), 20.0 / 30.0 - 1.0, 1e-9);
  EXPECT_FALSE(b["agrees"].get<bool>());  // -33% is beyond the 25% tolerance
}

TEST(ProfilingBreakdown, EventsAreClippedToTheWindow) {
  const std::vector<TraceEvent> events = {ev("aten::mm", EventKind::cpu_op, -0.0, 4),
                                          ev("aten::mm", EventKind::cpu_op, 8, 14)};
  Window w{2 * ms, 10 * ms, 1, false, std::nullopt, 0.25};
  const json b = to_json(breakdown(events, w));
  EXPECT_NEAR(b["categories_s"]["gemm"].get<double>(), 4e-3, 1e-12);  // 2 ms + 2 ms inside
  EXPECT_TRUE(b["overhead"].is_null());
  EXPECT_TRUE(b["agrees"].is_null());
}

// The figures cross the experiment's child process pipe as JSON: read back,
// a device window (launches, host-while-idle names, no step times) and a CPU one
// (nulls where a CPU has no figure, a window record and a trace path) serialize
// as they were made.
TEST(ProfilingBreakdown, FiguresSurviveTheirJson) {
  const std::vector<TraceEvent> device = {ev("ampere_sgemm_128x64_nn", EventKind::kernel, 1, 4),
                                          ev("Memcpy HtoD (Pinned -> Device)", EventKind::memcpy, 3, 6),
                                          ev("cudaLaunchKernel", EventKind::launch, 0.5, 0.6),
                                          ev("aten::item", EventKind::cpu_op, 6, 9)};
  BreakdownFigures cpu = breakdown({ev("aten::mm", EventKind::cpu_op, 1, 4)}, Window{0, 5 * ms, 1, false, 0.004, 0.25});
  cpu.window = WindowRecord{3, 20, 0.02, true, true, "settled", 0.011};
  cpu.trace = "/tmp/t.json";
  for (const BreakdownFigures& b : {breakdown(device, Window{0, 10 * ms, 2, true, 0.005, 0.25}), cpu}) {
    const json j = to_json(b);
    EXPECT_EQ(to_json(breakdown_figures_from_json(j)), j) << j.dump();
  }
  const json c = to_json(cpu);
  EXPECT_TRUE(c["launches_per_step"].is_null());
  EXPECT_FALSE(c.contains("device_events"));
  EXPECT_EQ(c["window"]["stopped"], "settled");
  EXPECT_EQ(c["trace"], "/tmp/t.json");
  const json d = to_json(breakdown(device, Window{0, 10 * ms, 2, true, 0.005, 0.25}));
  EXPECT_EQ(d["device_events"], 2);
  EXPECT_FALSE(d["host_ops_while_idle_top"][0].contains("category"));
  EXPECT_TRUE(d["step_s"].is_null());
  EXPECT_FALSE(d.contains("window"));
}

}  // namespace
