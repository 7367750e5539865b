// The profiler on the CPU, as CI runs it: a matmul-dominated step comes out
// dominated by gemm, an elementwise-dominated one by elementwise, a host copy
// reports no CUDA categories (a CPU build has no device timeline to invent), a
// run writes one loadable Chrome trace per variant, and profiling is recorded
// apart from the timed samples.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "harness/case_result_json.h"
#include "harness/case_runner.h"
#include "harness/profiling/breakdown.h"
#include "harness/profiling/chrome_trace.h"
#include "harness/profiling/kineto_window.h"
#include "harness/profiling/profiler_role.h"
#include "tests/scoped_env.h"

using namespace optbench;
using json = nlohmann::json;

namespace {

std::string dominant(const json& b) {
  std::string best;
  double most = -1;
  for (const auto& [k, v] : b.at("categories_s").items())
    if (v.get<double>() > most) most = v.get<double>(), best = k;
  return best;
}

json profile(const std::function<void()>& step, int steps = 5, const std::string& trace = "") {
  auto backend = make_backend(DeviceKind::cpu);
  profiling::WindowRequest r;
  r.steps = steps;
  r.trace_path = trace;
  return profiling::to_json(profiling::profile_window(step, *backend, r));
}

TEST(ProfilingCpu, MatmulStepIsGemm) {
  const at::Tensor x = at::randn({256, 512}), w1 = at::randn({512, 512}), w2 = at::randn({512, 512});
  const json b = profile([&] { at::relu(at::relu(x.mm(w1)).mm(w2)); });
  ASSERT_TRUE(b.contains("categories_s")) << b.dump();
  EXPECT_EQ(dominant(b), "gemm") << b.dump(1);
  EXPECT_EQ(b["device"], "cpu");
}

TEST(ProfilingCpu, PointwiseStepIsElementwise) {
  const at::Tensor x = at::randn({1 << 20});
  const at::Tensor w = at::randn({8, 8});
  const json b = profile([&] {
    at::Tensor y = at::sigmoid(x) * x + 1.0;
    y = at::gelu(y).mul_(0.5);
    (void)w.mm(w);  // a tiny matmul beside a million-element pointwise chain
  });
  ASSERT_TRUE(b.contains("categories_s")) << b.dump();
  EXPECT_EQ(dominant(b), "elementwise") << b.dump(1);
}

TEST(ProfilingCpu, HostCopyReportsNoDeviceCategories) {
  // pinned_memory's copy on a CPU build: a host copy, never an H2D one.
  const at::Tensor src = at::randn({1 << 22});
  at::Tensor dst = at::empty_like(src);
  const json b = profile([&] { dst.copy_(src); });
  ASSERT_TRUE(b.contains("categories_s")) << b.dump();
  EXPECT_EQ(dominant(b), "memcpy_host") << b.dump(1);
  for (const char* k : {"memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memset", "collective"})
    EXPECT_FALSE(b["categories_s"].contains(k)) << k;
  EXPECT_TRUE(b["launches_per_step"].is_null());
  EXPECT_TRUE(b["copy_overlap"].is_null());
}

TEST(ProfilingCpu, TraceFileLoads) {
  const auto dir = std::filesystem::temp_directory_path() / ("optbench_trace_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.pt.trace.json").string();
  const at::Tensor a = at::randn({64, 64});
  const json b = profile([&] { (void)a.mm(a); }, 3, path);
  EXPECT_EQ(b["trace"], path);
  std::ifstream in(path);
  const json trace = json::parse(in);
  ASSERT_TRUE(trace.contains("traceEvents"));
  bool has_mm = false;
  profiling::Window w;
  for (const auto& e : trace["traceEvents"]) {
    has_mm = has_mm || e.value("name", "") == "aten::mm";
    if (e.value("name", "") == "optbench::window" && e.value("cat", "") == "user_annotation") {
      w.start_ns = static_cast<std::uint64_t>(std::llround(e["ts"].get<double>() * 1e3));
      w.end_ns = w.start_ns + static_cast<std::uint64_t>(std::llround(e["dur"].get<double>() * 1e3));
    }
  }
  EXPECT_TRUE(has_mm);
  // The file says what the results say: its breakdown is the one recorded live.
  ASSERT_GT(w.end_ns, w.start_ns) << "no window annotation in the trace";
  w.steps = 3;
  const json from_file = profiling::to_json(profiling::breakdown(profiling::events_from_chrome_trace(trace), w));
  EXPECT_NEAR(from_file["categories_s"]["gemm"].get<double>(), b["categories_s"]["gemm"].get<double>(),
              0.02 * b["categories_s"]["gemm"].get<double>());
  EXPECT_NEAR(from_file["window_step_s"].get<double>(), b["window_step_s"].get<double>(),
              0.02 * b["window_step_s"].get<double>());
  std::filesystem::remove_all(dir);
}

// A case of two variants of one matmul step, timed on the host.
Case mm_case() {
  struct Mm final : Workload {
    at::Tensor a = at::randn({128, 128});
    void step() override { (void)a.mm(a); }
  };
  Case c;
  c.name = "mm";
  c.timing = TimingMode::sync;
  for (const char* n : {"a", "b"}) c.variants.push_back({n, "", [] { return std::make_unique<Mm>(); }});
  return c;
}

// A short quick run of a case, every variant profiled.
MeasureConfig profiled_quick(double max_time_s) {
  MeasureConfig cfg = measure_config_for(RunProfile::quick);
  cfg.warmup_min_s = 0.01;
  cfg.warmup_max_s = 0.05;
  cfg.stopping = {6, 0.01, max_time_s, 100000, 0.5, 0.95};
  cfg.breakdown.mode = profiling::BreakdownMode::on;
  return cfg;
}

// The runner: every variant gets a breakdown after its samples, the time goes
// to time_s.profiling, and sampling_s does not include it.
TEST(ProfilingCpu, RunCaseRecordsABreakdownPerVariantOutsideSampling) {
  const Case c = mm_case();
  auto backend = make_backend(DeviceKind::cpu);
  MeasureConfig cfg = profiled_quick(0.3);
  std::atomic<bool> stop{false};
  const json r = to_json(run_case(c, *backend, cfg, CaseLimits{1.0, std::nullopt}, stop));
  for (const auto& v : r["variants"]) {
    ASSERT_TRUE(v.contains("breakdown")) << v.dump();
    EXPECT_EQ(v["breakdown"]["status"], "ok");
    EXPECT_EQ(dominant(v["breakdown"]), "gemm");
    EXPECT_NEAR(v["breakdown"]["timed_step_s"].get<double>(), v["stats"]["median"].get<double>(), 1e-12);
  }
  EXPECT_GT(r["time_s"]["profiling"].get<double>(), 0.0);
  // Off: nothing profiled, nothing recorded.
  cfg.breakdown.mode = profiling::BreakdownMode::off;
  const json off = to_json(run_case(c, *backend, cfg, CaseLimits{1.0, std::nullopt}, stop));
  for (const auto& v : off["variants"]) EXPECT_FALSE(v.contains("breakdown"));
  EXPECT_LT(off["time_s"]["profiling"].get<double>(), 1e-3);
}

// A process whose times are published never starts the profiler: a window
// asked for there is refused, and run_case records why instead of taking it.
TEST(ProfilingCpu, ATimedProcessNeverStartsTheProfiler) {
  ASSERT_FALSE(profiling::in_timed_process());
  optbench::testing::ScopedEnv timed("OPTBENCH_TIMED_PROCESS", "1");
  ASSERT_TRUE(profiling::in_timed_process());
  EXPECT_THROW(profile([] { (void)at::ones({8}).sum(); }), std::logic_error);
  auto backend = make_backend(DeviceKind::cpu);
  std::atomic<bool> stop{false};
  const json r = to_json(run_case(mm_case(), *backend, profiled_quick(0.2), CaseLimits{1.0, std::nullopt}, stop));
  for (const auto& v : r["variants"]) {
    ASSERT_TRUE(v.contains("breakdown")) << v.dump();
    EXPECT_EQ(v["breakdown"]["status"], "skipped");
    EXPECT_NE(v["breakdown"]["reason"].get<std::string>().find("process of their own"), std::string::npos);
  }
}

}  // namespace
