#include "harness/variant_runner.h"

#include "harness/out_of_process.h"
#include "harness/seeding.h"

namespace optbench {
namespace {

using json = nlohmann::json;

std::optional<MemoryPeak> minus(std::optional<MemoryPeak> a, std::optional<MemoryPeak> b) {
  if (!a || !b) return std::nullopt;
  return MemoryPeak{a->allocated_bytes - b->allocated_bytes, a->reserved_bytes - b->reserved_bytes};
}

// The workload's steps run in another process (a Python twin, Python's DataLoader).
const OutOfProcessWork* elsewhere(const Workload* w) { return dynamic_cast<const OutOfProcessWork*>(w); }

class InProcessRunner final : public VariantRunner {
 public:
  InProcessRunner(const Variant& v, DeviceBackend& backend) : spec_(v), backend_(backend) {}

  Prepared prepare(const PrepareSpec& p) override {
    Prepared out;
    std::optional<MemoryPeak> before;
    try {
      // Blocks that earlier variants freed go back to the device first, so this
      // variant's peak is its own footprint, not what it could reuse.
      backend_.release_cached_memory();
      before = backend_.current_memory();
      backend_.reset_peak_memory();
      backend_.hold_stream(p.hold_stream);
      const double t_build = backend_.now();
      work_ = build_workload(spec_);
      out.build_s = backend_.now() - t_build;
      auto* w = work_.get();
      out.warmup =
          warm_up(backend_, [w] { w->step(); }, p.mode, std::min(p.warmup_min_s, p.warmup_max_s), p.warmup_max_s);
      out.iters = iters_per_sample(out.warmup.step_s, p.target_sample_s, p.max_iters);
      // Work in another process allocates nothing here: this allocator's figure would read "0 B".
      if (!elsewhere(w)) out.memory = minus(backend_.peak_memory(), before);
    } catch (const std::exception& e) {
      out.status = is_out_of_memory(e) ? "oom" : "error";
      out.error = first_line(e.what());
      work_.reset();
      try {
        out.memory = minus(backend_.peak_memory(), before);
        backend_.release_cached_memory();
      } catch (const std::exception&) {
      }
    }
    return out;
  }

  Sample sample(std::int64_t iters, TimingMode mode) override {
    auto* w = work_.get();
    if (!w) throw std::logic_error("variant '" + spec_.name + "' sampled before it was prepared");
    Sample s = backend_.time([w] { w->step(); }, iters, mode);
    if (elsewhere(w)) {
      // This process's stream and pages saw none of the work: events around an
      // empty stream read microseconds, and the faults are the wait's.
      s.device_s.reset();
      s.minor_faults.reset();
    }
    return s;
  }

  json metrics() override { return work_ ? work_->metrics() : json::object(); }
  BreakdownRecord profiled_window(const profiling::WindowRequest& r) override {
    auto* w = work_.get();
    if (!w) throw std::logic_error("variant '" + spec_.name + "' profiled before it was prepared");
    if (const auto* o = elsewhere(w)) return BreakdownRecord::skipped(not_profiled_here(o->runs_in()));
    return {BreakdownStatus::ok, "", profiling::profile_window([w] { w->step(); }, backend_, r)};
  }
  Workload* workload() override { return work_.get(); }
  const char* process() const override { return "shared"; }

 private:
  const Variant& spec_;
  DeviceBackend& backend_;
  std::unique_ptr<Workload> work_;
};

}  // namespace

std::unique_ptr<VariantRunner> make_in_process_runner(const Variant& v, DeviceBackend& backend) {
  return std::make_unique<InProcessRunner>(v, backend);
}

std::string first_line(const std::string& what) { return what.substr(0, what.find('\n')); }

TimingMode timing_mode_from(const std::string& name) {
  if (name == "sync") return TimingMode::sync;
  if (name == "batched") return TimingMode::batched;
  throw std::invalid_argument("unknown timing mode '" + name + "'");
}

json to_json(const PrepareSpec& p) {
  return {{"mode", to_string(p.mode)},      {"hold_stream", p.hold_stream},         {"warmup_min_s", p.warmup_min_s},
          {"warmup_max_s", p.warmup_max_s}, {"target_sample_s", p.target_sample_s}, {"max_iters", p.max_iters}};
}

PrepareSpec prepare_spec_from_json(const json& j) {
  return {timing_mode_from(j.at("mode")), j.at("hold_stream"),     j.at("warmup_min_s"),
          j.at("warmup_max_s"),           j.at("target_sample_s"), j.at("max_iters")};
}

json to_json(const Sample& s) {
  json j = {{"host_s", s.host_s}, {"iters", s.iters}};
  if (s.device_s) j["device_s"] = *s.device_s;
  if (s.sm_clock_mhz) j["sm_clock_mhz"] = *s.sm_clock_mhz;
  if (s.clock_reasons) j["clock_reasons"] = *s.clock_reasons;
  if (s.gpu_util_pct) j["gpu_util_pct"] = *s.gpu_util_pct;
  if (s.memory_util_pct) j["memory_util_pct"] = *s.memory_util_pct;
  if (s.power_w) j["power_w"] = *s.power_w;
  if (s.minor_faults) j["minor_faults"] = *s.minor_faults;
  return j;
}

Sample sample_from_json(const json& j) {
  Sample s;
  s.host_s = j.at("host_s").get<double>();
  s.iters = j.at("iters").get<std::int64_t>();
  if (j.contains("device_s")) s.device_s = j["device_s"].get<double>();
  if (j.contains("sm_clock_mhz")) s.sm_clock_mhz = j["sm_clock_mhz"].get<double>();
  if (j.contains("clock_reasons")) s.clock_reasons = j["clock_reasons"].get<std::uint64_t>();
  if (j.contains("gpu_util_pct")) s.gpu_util_pct = j["gpu_util_pct"].get<double>();
  if (j.contains("memory_util_pct")) s.memory_util_pct = j["memory_util_pct"].get<double>();
  if (j.contains("power_w")) s.power_w = j["power_w"].get<double>();
  if (j.contains("minor_faults")) s.minor_faults = j["minor_faults"].get<double>();
  return s;
}

json to_json(const Prepared& p) {
  json j = {{"status", p.status},
            {"error", p.error},
            {"iters", p.iters},
            {"build_s", p.build_s},
            {"warmup",
             {{"first_run_s", p.warmup.first_run_s},
              {"iters", p.warmup.iters},
              {"seconds", p.warmup.seconds},
              {"stable", p.warmup.stable},
              {"step_s", p.warmup.step_s}}}};
  if (p.memory) j["memory"] = {p.memory->allocated_bytes, p.memory->reserved_bytes};
  return j;
}

Prepared prepared_from_json(const json& j) {
  Prepared p;
  p.status = j.at("status").get<std::string>();
  p.error = j.at("error").get<std::string>();
  p.iters = j.at("iters").get<std::int64_t>();
  p.build_s = j.value("build_s", 0.0);
  const auto& w = j.at("warmup");
  p.warmup = {w.at("first_run_s").get<double>(), w.at("iters").get<std::int64_t>(), w.at("seconds").get<double>(),
              w.at("stable").get<bool>(), w.at("step_s").get<double>()};
  if (j.contains("memory"))
    p.memory = MemoryPeak{j["memory"][0].get<std::int64_t>(), j["memory"][1].get<std::int64_t>()};
  return p;
}

}  // namespace optbench
