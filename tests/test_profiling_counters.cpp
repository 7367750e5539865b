// Mechanism counters (harness/profiling/counters.h) and compiled code's time
// (scopes.h): exact counts on synthetic events, then the experiments' own CPU
// workloads under the real profiler, where each optimization must move the
// counter its experiment names: set_to_none removes one fill per parameter
// tensor, no_grad records no autograd node, fused AdamW calls far fewer
// operators than the per-tensor loop, reading the loss every 10th step reads
// it a tenth as often, and a frozen TorchScript graph's convolutions are
// convolution time, not "other" or idle.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "harness/profiling/breakdown.h"
#include "harness/profiling/chrome_trace.h"
#include "harness/profiling/counters.h"
#include "harness/profiling/kineto_window.h"
#include "harness/profiling/scopes.h"
#include "harness/registry.h"
#include "workloads/models/convnet.h"
#include "workloads/models/convnet_script.h"

using namespace optbench;
using namespace optbench::profiling;
using json = nlohmann::json;

namespace {

constexpr std::uint64_t us = 1000;  // ns

TraceEvent ev(std::string name, EventKind k, double from_us, double to_us, std::int64_t seq = -1,
              std::uint64_t thread = 1) {
  TraceEvent e;
  e.name = std::move(name);
  e.kind = k;
  e.start_ns = static_cast<std::uint64_t>(from_us * us);
  e.end_ns = static_cast<std::uint64_t>(to_us * us);
  e.thread = thread;
  e.sequence = seq;
  return e;
}

TEST(ProfilingCounters, OperatorNames) {
  for (const char* n : {"aten::mm", "aten::_foreach_add_", "prim::mkldnn_convolution", "c10d::allreduce_"})
    EXPECT_TRUE(is_operator(n)) << n;
  for (const char* n : {"forward", "detach", "MmBackward0", "autograd::engine::evaluate_function: MmBackward0",
                        "torch::autograd::AccumulateGrad", "optbench::optimizer_step", "aten::", "::mm"})
    EXPECT_FALSE(is_operator(n)) << n;
}

// Two steps: forward ops with sequence numbers, a backward node, zeroing
// (zero_ calling fill_: one fill), an optimizer step of three ops, an item().
TEST(ProfilingCounters, SyntheticTwoStepsCountExactly) {
  std::vector<TraceEvent> events;
  for (int s = 0; s < 2; ++s) {
    const double t = 100.0 * s;
    events.push_back(ev("aten::zero_", EventKind::cpu_op, t + 0, t + 4));
    events.push_back(ev("aten::fill_", EventKind::cpu_op, t + 1, t + 3));
    events.push_back(ev("aten::linear", EventKind::cpu_op, t + 5, t + 15, 10 * s));
    events.push_back(ev("aten::t", EventKind::cpu_op, t + 6, t + 7, 10 * s));  // shares linear's number
    events.push_back(ev("aten::addmm", EventKind::cpu_op, t + 8, t + 14, 10 * s + 1));
    events.push_back(
        ev("autograd::engine::evaluate_function: AddmmBackward0", EventKind::cpu_op, t + 20, t + 30, 10 * s + 1));
    events.push_back(ev("AddmmBackward0", EventKind::cpu_op, t + 21, t + 29, 10 * s + 1));
    events.push_back(ev("aten::mm", EventKind::cpu_op, t + 22, t + 28));
    events.push_back(ev(kOptimizerStepScope, EventKind::annotation, t + 40, t + 60));
    for (int i = 0; i < 3; ++i) events.push_back(ev("aten::add_", EventKind::cpu_op, t + 41 + 5 * i, t + 44 + 5 * i));
    events.push_back(ev("aten::item", EventKind::cpu_op, t + 70, t + 75));
    events.push_back(ev("aten::_local_scalar_dense", EventKind::cpu_op, t + 71, t + 74));
  }
  events.push_back(ev("aten::mm", EventKind::cpu_op, 300, 310));  // after the window
  const json c = to_json(count_mechanisms(events, 0, 200 * us, 2, std::nullopt));
  EXPECT_DOUBLE_EQ(c["op_calls_per_step"].get<double>(), 11);      // zero_ fill_ linear t addmm mm add_x3 item dense
  EXPECT_DOUBLE_EQ(c["top_level_ops_per_step"].get<double>(), 7);  // zero_ linear mm add_x3 item
  EXPECT_DOUBLE_EQ(c["autograd_nodes_per_step"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(c["backward_nodes_per_step"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(c["fills_per_step"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(c["host_reads_per_step"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(c["optimizer_steps_per_step"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(c["optimizer_ops_per_step"].get<double>(), 3);
  EXPECT_TRUE(c["kernel_launches_per_step"].is_null());  // a CPU window: not measurable, not zero
  std::vector<std::string> keys;
  for (const auto& [k, v] : c.items()) keys.push_back(k);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()),
            std::set<std::string>(counter_keys().begin(), counter_keys().end()));
}

// A compiled scope's time outside the operators it calls is compiled code (or
// the category it names), busy rather than idle, and a TorchScript method's
// record inside it is no "other".
TEST(ProfilingCounters, CompiledScopeTimeIsItsOwnCategory) {
  const std::vector<TraceEvent> events = {
      ev(std::string(kCompiledScope) + "/conv", EventKind::annotation, 0, 100),
      ev("forward", EventKind::cpu_op, 5, 95),
      ev("aten::relu_", EventKind::cpu_op, 50, 60),
      ev(kCompiledScope, EventKind::annotation, 200, 300),
      ev("aten::mkldnn_convolution", EventKind::cpu_op, 210, 240),
      ev(kStepScope, EventKind::annotation, 0, 150),
      ev(kStepScope, EventKind::annotation, 150, 400),
  };
  Window w;
  w.start_ns = 0;
  w.end_ns = 400 * us;
  w.steps = 2;
  const json b = to_json(breakdown(events, w));
  EXPECT_NEAR(b["categories_s"]["conv"].get<double>() * 2, 90e-6 + 30e-6, 1e-12);  // the graph's 90 + the real conv
  EXPECT_NEAR(b["categories_s"]["compiled"].get<double>() * 2, 70e-6, 1e-12);
  EXPECT_NEAR(b["categories_s"]["elementwise"].get<double>() * 2, 10e-6, 1e-12);
  EXPECT_FALSE(b["categories_s"].contains("other")) << b.dump(1);
  EXPECT_NEAR(b["idle_s"].get<double>() * 2, 200e-6, 1e-12);  // 400 less the two scopes
  ASSERT_EQ(b["step_s"].size(), 2u);
  EXPECT_NEAR(b["step_s"][0].get<double>(), 150e-6, 1e-12);
  EXPECT_NEAR(b["step_s"][1].get<double>(), 250e-6, 1e-12);
  EXPECT_DOUBLE_EQ(b["counters"]["op_calls_per_step"].get<double>(), 1);  // relu_ and the convolution
}

// --- the experiments' own CPU workloads under the profiler ---

const Experiment& experiment(const std::string& name) { return *Registry::instance().match("^" + name + "$").at(0); }

const Case& case_named(const std::vector<Case>& cases, const std::string& prefix) {
  for (const auto& c : cases)
    if (c.name.rfind(prefix, 0) == 0) return c;
  throw std::runtime_error("no case " + prefix);
}

json profile(Workload& w, int steps = 3, const std::string& trace = "") {
  auto backend = make_backend(DeviceKind::cpu);
  WindowRequest r;
  r.steps = steps;
  r.trace_path = trace;
  return to_json(profile_window([&] { w.step(); }, *backend, r));
}

// Each variant's counters, by variant name.
std::map<std::string, json> counters_of(const Case& c, int steps = 3) {
  std::map<std::string, json> out;
  for (const auto& v : c.variants) {
    auto w = v.make();
    const json b = profile(*w, steps);
    EXPECT_TRUE(b.contains("categories_s")) << v.name;
    out[v.name] = b["counters"];
  }
  return out;
}

double n(const json& c, const char* key) { return c.at(key).get<double>(); }

TEST(ProfilingCountersCpu, SetToNoneRemovesOneFillPerParameterTensor) {
  const auto cases = experiment("zero_grad").cases({DeviceKind::cpu, RunProfile::quick});
  const Case& c = case_named(cases, "mlp_");
  const auto k = counters_of(c);
  const double tensors = c.notes.at("parameter_tensors").get<double>();
  EXPECT_DOUBLE_EQ(n(k.at("zeroing"), "fills_per_step") - n(k.at("set_to_none"), "fills_per_step"), tensors)
      << k.at("zeroing").dump() << k.at("set_to_none").dump();
  for (const auto& [name, v] : k) {
    EXPECT_DOUBLE_EQ(n(v, "optimizer_steps_per_step"), 1) << name;
    EXPECT_GT(n(v, "backward_nodes_per_step"), 0) << name;
    EXPECT_GT(n(v, "optimizer_ops_per_step"), 0) << name;
  }
}

TEST(ProfilingCountersCpu, NoGradRecordsNoAutogradNodes) {
  const auto cases = experiment("eval_no_grad").cases({DeviceKind::cpu, RunProfile::quick});
  const auto k = counters_of(cases.at(0));
  EXPECT_GE(n(k.at("grad_enabled"), "autograd_nodes_per_step"), 8);  // 4 Linear (t, addmm) and 4 GELU at the least
  EXPECT_EQ(n(k.at("no_grad"), "autograd_nodes_per_step"), 0);
  EXPECT_EQ(n(k.at("inference_mode"), "autograd_nodes_per_step"), 0);
  for (const auto& [name, v] : k) EXPECT_EQ(n(v, "backward_nodes_per_step"), 0) << name;  // evaluation: no backward
}

TEST(ProfilingCountersCpu, FusedAdamWCallsFarFewerOptimizerOperators) {
  const auto cases = experiment("fused_optimizer").cases({DeviceKind::cpu, RunProfile::quick});
  const auto k = counters_of(case_named(cases, "optimizer_step_mlp"));
  const double loop = n(k.at("per_tensor"), "optimizer_ops_per_step");
  EXPECT_LT(n(k.at("foreach"), "optimizer_ops_per_step"), loop);
  EXPECT_LT(4 * n(k.at("fused"), "optimizer_ops_per_step"), loop) << k.at("fused").dump() << k.at("per_tensor").dump();
  for (const auto& [name, v] : k) EXPECT_DOUBLE_EQ(n(v, "optimizer_steps_per_step"), 1) << name;
}

TEST(ProfilingCountersCpu, HostSyncReadsAsOftenAsItSays) {
  const auto cases = experiment("host_sync").cases({DeviceKind::cpu, RunProfile::quick});
  const auto k = counters_of(cases.at(0), 1);  // a step is a unit of 20 training steps
  std::set<double> reads;
  for (const auto& [name, v] : k) reads.insert(n(v, "host_reads_per_step"));
  EXPECT_EQ(reads, (std::set<double>{0, 2, 20}));
}

TEST(ProfilingCountersCpu, AccumulationTakesOneOptimizerStepAndMoreOperatorCalls) {
  const auto cases = experiment("grad_accumulation").cases({DeviceKind::cpu, RunProfile::quick});
  const auto k = counters_of(cases.at(0), 2);
  EXPECT_LT(n(k.at("one_batch"), "op_calls_per_step"), n(k.at("accumulate_k2"), "op_calls_per_step"));
  EXPECT_LT(n(k.at("accumulate_k2"), "op_calls_per_step"), n(k.at("accumulate_k4"), "op_calls_per_step"));
  for (const auto& [name, v] : k) EXPECT_DOUBLE_EQ(n(v, "optimizer_steps_per_step"), 1) << name;
}

// A frozen, optimised graph runs its convolutions as prim::mkldnn_convolution,
// which no profiler record covers: inside its compiled/conv scope they are
// convolution time, where before they were the "forward" record's self time.
TEST(ProfilingCountersCpu, FrozenGraphConvolutionsAreConvolutionTime) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "no MKL-DNN: optimize_for_inference keeps aten convolutions";
  const auto cases = experiment("torchscript").cases({DeviceKind::cpu, RunProfile::quick});
  const Case& c = case_named(cases, "convnet_b1");
  for (const auto& v : c.variants) {
    if (v.name != "frozen_optimized") continue;
    auto w = v.make();
    const json b = profile(*w, 3);
    ASSERT_TRUE(b.contains("categories_s"));
    // Without the scope the trace has no convolution at all: the graph's time
    // is its "forward" record's self time, "other".
    const json& cats = b["categories_s"];
    EXPECT_TRUE(cats.contains("conv")) << b.dump(1);
    EXPECT_FALSE(cats.contains("compiled")) << b.dump(1);  // every unrecorded operator is a convolution
    for (const auto& name : b["other_names"]) EXPECT_NE(name, "forward");
  }
}

// A saved trace gives the counters the live window gave (the sequence numbers
// come from the trace's args).
TEST(ProfilingCountersCpu, SavedTraceGivesTheSameCounters) {
  const auto dir = std::filesystem::temp_directory_path() / ("optbench_counters_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.pt.trace.json").string();
  const auto cases = experiment("zero_grad").cases({DeviceKind::cpu, RunProfile::quick});
  auto w = case_named(cases, "mlp_").variants.at(0).make();
  const json live = profile(*w, 2, path);
  std::ifstream in(path);
  const json trace = json::parse(in);
  Window win;
  for (const auto& e : trace["traceEvents"])
    if (e.value("name", "") == kWindowScope && e.value("cat", "") == "user_annotation") {
      win.start_ns = static_cast<std::uint64_t>(std::llround(e["ts"].get<double>() * 1e3));
      win.end_ns = win.start_ns + static_cast<std::uint64_t>(std::llround(e["dur"].get<double>() * 1e3));
    }
  ASSERT_GT(win.end_ns, win.start_ns);
  win.steps = 2;
  const json file = to_json(breakdown(events_from_chrome_trace(trace), win));
  EXPECT_EQ(file["counters"], live["counters"]);
  EXPECT_GT(n(live["counters"], "autograd_nodes_per_step"), 0);
  EXPECT_EQ(file["step_s"].size(), 2u);
  std::filesystem::remove_all(dir);
}

// Every counter an experiment names is one the breakdown records.
TEST(ProfilingCounters, ExperimentsNameKnownCounters) {
  const std::set<std::string> known(counter_keys().begin(), counter_keys().end());
  int naming = 0;
  for (const Experiment* e : Registry::instance().match(".*")) {
    const auto info = e->info();
    naming += !info.mechanism_counters.empty();
    for (const auto& k : info.mechanism_counters) EXPECT_TRUE(known.count(k)) << info.name << ": " << k;
  }
  EXPECT_GE(naming, 10);
}

}  // namespace
