// Checklist: DistributedDataParallel instead of DataParallel ("Faster
// (multi-process)"). Training steps of an MLP (fp32, TF32 off), and at world
// size 1 on CUDA of ResNet-50, in the ways workloads/ddp/train.h describes:
//  - under torchrun / srun (N ranks on one node):
//    mlp_train_wsN at one global batch (per-rank batch x N): one device on rank
//    0 vs DataParallel over N devices on rank 0 (CPU: a DP-equivalent in one
//    process) vs DDP over the N ranks (gradients copied into buckets, or living
//    in them), with the scaling efficiency of each; and allreduce_wsN, the
//    gradient bytes alone (nccl-tests' busbw). Rank 0 times the one-process
//    variants while the other ranks wait on the host, outside any collective;
//    DDP steps start on every rank together (a per-step handshake);
//  - plain `optbench run` (one process): what DDP costs at world size 1 (copy
//    vs bucket views) on the MLP and (CUDA) ResNet-50, and DataParallel over
//    the visible GPUs against one.
// Only rank 0 measures and writes. Every variant's first-step gradients must
// equal one process training on every rank's batch concatenated.
#include <torch/torch.h>

#include "harness/case_result.h"
#include "harness/compat/distributed.h"
#include "harness/distributed/session.h"
#include "harness/registry.h"
#include "workloads/common.h"
#include "workloads/ddp/bucketed_ddp.h"
#include "workloads/ddp/train.h"

namespace optbench::workloads {
namespace {

namespace dist = optbench::distributed;
using json = nlohmann::json;
using ddp::GradLayout;
using ddp::Mode;
using ddp::TrainSpec;

constexpr const char* kExperiment = "data_parallel";

TrainSpec mlp_spec(DeviceKind d) {
  // DDP's default 25 MB buckets. GPU: ~36M parameters, 143 MB of gradients in 6
  // buckets. CPU: small enough for the reference BLAS (1 MB, one bucket; Gloo on
  // a small machine pays ~1 ms per collective, so smaller buckets only add latency).
  TrainSpec s;
  if (d == DeviceKind::cuda) {
    s.batch = 256, s.width = 2048, s.depth = 8, s.classes = 1024;
  } else {
    s.batch = 32, s.width = 256, s.depth = 4, s.classes = 16;
  }
  return s;
}

TrainSpec resnet_spec() {
  TrainSpec s;
  s.net = ddp::Net::resnet50;
  s.batch = 64;
  s.classes = 1000;
  return s;
}

// An all-reduce of the gradients' bytes in one flat fp32 buffer, on every rank:
// nccl-tests' measurement, for the bus bandwidth DDP gets.
class AllreduceBench final : public dist::DistributedWorkload {
 public:
  AllreduceBench(std::int64_t bytes, const ddp::Job& job) {
    session_ = dist::current_session();
    if (!session_) throw std::runtime_error("an all-reduce across ranks needs a launched run");
    job_ = session_->announce(job.experiment, job.case_name, job.variant);
    try {
      const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(session_->device());
      numel_ = bytes / 4;
      // Result check first (nccl-tests -c): rank r contributes r+1 everywhere.
      auto check = torch::full({numel_}, static_cast<float>(session_->rank() + 1), opts);
      session_->wait(compat::allreduce_async(session_->collectives(), check), "the all-reduce result check");
      const int n = session_->world_size();
      const double expect = n * (n + 1) / 2.0;
      const double lo = check.min().item<double>(), hi = check.max().item<double>();
      if (lo != expect || hi != expect)
        check_ = "all-reduce result [" + std::to_string(lo) + ", " + std::to_string(hi) + "], expected " +
                 std::to_string(expect);
      buffer_ = torch::zeros({numel_}, opts);  // zeros stay zeros
    } catch (const std::exception& e) {
      session_->abort(e.what());
      throw;
    }
  }

  ~AllreduceBench() override {
    try {
      session_->end_job(job_);
    } catch (const std::exception&) {
    }
  }

  void step() override {
    session_->start_step(job_);
    run();
  }

  void follow_step() override { run(); }

  nlohmann::json metrics() override {
    return {{"world_size", session_->world_size()}, {"backend", session_->backend()}, {"bytes", numel_ * 4}};
  }

  const std::string& check() const { return check_; }

 private:
  void run() {
    dist::fault_injection_point(session_->rank());
    session_->wait(compat::allreduce_async(session_->collectives(), buffer_), "all-reduce");
  }

  dist::Session* session_ = nullptr;
  std::int64_t job_ = -1, numel_ = 0;
  torch::Tensor buffer_;
  std::string check_;
};

json samples_per_s(const VariantResult& v) {
  return v.throughput.items_per_s ? json(*v.throughput.items_per_s) : json(nullptr);
}

// Per variant: throughput, the ratio against one device at the same global
// batch, and the scaling efficiency (ratio / devices it used) with its CI; at
// world size 1, DDP's overhead. `devices`: how many devices each variant used.
json derive_scaling(const CaseResult& r, const std::map<std::string, int>& devices) {
  json out = {{"single_device_samples_per_s", samples_per_s(r.variants.at(0))}, {"variants", json::object()}};
  for (const auto& c : r.comparisons) {
    const VariantResult* v = r.variant(c.variant);
    if (!v || !devices.count(c.variant)) continue;
    const int n = devices.at(c.variant);
    json d = {{"devices", n}, {"samples_per_s", samples_per_s(*v)}};
    if (c.speedup) {
      const SpeedupEstimate& sp = *c.speedup;
      d["throughput_ratio"] = sp.value;
      d["scaling_efficiency"] = sp.value / n;
      if (!sp.below_floor) d["scaling_efficiency_ci"] = {sp.ci_low / n, sp.ci_high / n};
      if (n == 1 && sp.value > 0) d["overhead_fraction"] = 1.0 / sp.value - 1.0;
    }
    const json& m = v->metrics;
    if (m.is_object() && m.contains("buckets")) {
      d["grad_layout"] = m.value("grad_layout", "");
      d["buckets"] = m.value("buckets", 0);
      d["mean_buckets_overlapped"] = m.value("mean_buckets_overlapped", 0.0);
      if (m.value("comm_wait_measured", false) && v->stats) {
        const double wait = m["mean_comm_wait_s"].get<double>(), step = v->stats->median;
        d["mean_comm_wait_s"] = wait;
        if (step > 0) d["comm_wait_fraction"] = std::min(1.0, wait / step);
      }
    }
    out["variants"][c.variant] = d;
  }
  // The checklist's pair, at the same global batch: DDP's throughput over DP's.
  const VariantResult* dp = r.variant("data_parallel");
  for (const char* ddp_name : {"ddp", "ddp_bucket_view"}) {
    const VariantResult* dd = r.variant(ddp_name);
    if (dp && dd && dp->throughput.items_per_s && dd->throughput.items_per_s)
      out[std::string(ddp_name) + "_over_data_parallel"] = *dd->throughput.items_per_s / *dp->throughput.items_per_s;
  }
  return out;
}

json derive_busbw(const CaseResult& r, double bytes, int ranks) {
  json out = {{"bytes", bytes}, {"ranks", ranks}, {"formula", "algbw = bytes/time; busbw = algbw * 2(n-1)/n"}};
  const VariantResult& v = r.variants.at(0);
  if (!v.stats) return out;
  const double med = v.stats->median, best = v.stats->min;
  out["time_s"] = med;
  out["algbw_bytes_per_s"] = ddp::allreduce_algbw(bytes, med);
  out["busbw_bytes_per_s"] = ddp::allreduce_busbw(bytes, med, ranks);
  out["busbw_best_bytes_per_s"] = ddp::allreduce_busbw(bytes, best, ranks);
  return out;
}

std::function<std::string(std::vector<Workload*>&)> verify_first_step() {
  return [](std::vector<Workload*>& ws) -> std::string {
    for (Workload* w : ws) {
      if (auto* t = dynamic_cast<ddp::Train*>(w)) {
        if (auto p = t->check_first_step(); !p.empty()) return p;
      } else if (auto* a = dynamic_cast<AllreduceBench*>(w)) {
        if (!a->check().empty()) return a->check();
      }
    }
    return "";
  };
}

// What the variant is, in the params vocabulary (harness/results.schema.json): how
// the step is spread, and over how many devices (DataParallel) or ranks (DDP).
Variant spread(Variant v, const char* parallelism, int devices) {
  v.params = {{"parallelism", parallelism}, {"devices", devices}};
  return v;
}

WorkUnits units_for(const TrainSpec& s, double samples) {
  WorkUnits u;
  u.items = samples;
  u.flops = ddp::train_flops(s, samples);
  return u;
}

class DataParallelExperiment final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {kExperiment,
            "DistributedDataParallel vs DataParallel vs one device",
            "DDP: one process per device, gradients all-reduced in buckets overlapped with backward",
            {"ddp_scaling"},
            "Training steps of an MLP (fp32). Under torchrun / srun with N ranks on a node: one "
            "device on rank 0 vs DataParallel over N devices on rank 0 (CPU: a DP-equivalent in one process) vs DDP "
            "over the N ranks (gradients copied into buckets, or living in them), all at the same global batch, with "
            "scaling efficiency = throughput ratio / N; and an all-reduce of the gradient bytes (nccl-tests busbw). "
            "In one process: DDP at world size 1 (its overhead, copy vs bucket views; also ResNet-50 on CUDA) and "
            "DataParallel over the visible GPUs. Only rank 0 measures and writes; first-step gradients are checked "
            "against one process on the concatenated batch."};
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    const TrainSpec s = mlp_spec(ctx.device);
    dist::Session* session = dist::current_session();
    const int world = session ? session->world_size() : 1;
    const int visible = gpu ? static_cast<int>(torch::cuda::device_count()) : 0;
    const std::string backend = gpu ? "nccl" : "gloo";
    const std::string dev_words = gpu ? "GPU" : "CPU";
    std::string unavailable;
    if (!gpu && !compat::kHaveGloo)
      unavailable = "this build has no Gloo process group (install libgloo-dev and rebuild)";
    if (gpu && !compat::kHaveNccl)
      unavailable = "this build has no NCCL process group (nccl.h was not found when building)";
    const double grad_bytes = 4.0 * ddp::parameter_count(s);
    const DeviceKind kind = ctx.device;

    json params = {{"batch_per_rank", s.batch},
                   {"width", s.width},
                   {"depth", s.depth},
                   {"classes", s.classes},
                   {"parameters", ddp::parameter_count(s)},
                   {"gradient_bytes", grad_bytes},
                   {"bucket_cap_bytes", s.bucket_cap_bytes},
                   {"world_size", world},
                   {"processes", world},
                   {"backend", backend},
                   {"device", to_string(kind)},
                   {"visible_cuda_devices", visible},
                   {"launcher", session ? session->info().source : "none"}};
    auto train = [kind](const TrainSpec& spec, Mode m, GradLayout l, ddp::Job job, int ranks, bool local) {
      return [=] { return std::make_unique<ddp::Train>(spec, m, l, kind, job, ranks, local); };
    };
    const std::string ddp_words = "gradients copied into the buckets and back (PyTorch's default)";
    const std::string view_words = ".grad lives in the buckets (gradient_as_bucket_view=True)";
    const std::string avg_words = gpu ? "averaged by ReduceOp::AVG" : "scaled by 1/N while copied into the bucket";

    std::vector<Case> out;
    // Training at one global batch: single device vs DataParallel vs DDP (N ranks),
    // or DDP's overhead (one process).
    Case t;
    t.process_bound = true;  // DDP variants use this rank's process group
    t.name = "mlp_train_ws" + std::to_string(world);
    t.params = params;
    t.params["global_batch"] = s.batch * world;
    t.timing = TimingMode::sync;
    t.units = units_for(s, static_cast<double>(s.batch * world));
    t.verify = verify_first_step();
    std::map<std::string, int> devices;
    const ddp::Job no_job{};
    auto job = [&](const std::string& v) { return ddp::Job{kExperiment, t.name, v}; };
    t.variants.push_back(spread({"single_device", "rank 0 alone: one " + dev_words + ", the whole global batch",
                                 train(s, Mode::single_device, GradLayout::copy, no_job, world, false)},
                                "single", 1));
    if (world > 1) {
      const bool dp_possible = !gpu || visible >= world;
      if (dp_possible) {
        t.variants.push_back(
            spread({"data_parallel",
                    gpu ? "rank 0 alone: torch::nn::parallel::data_parallel over GPUs 0.." + std::to_string(world - 1) +
                              " (scatter, replicate, gather every step)"
                        : "rank 0 alone: a DataParallel-equivalent over " + std::to_string(world) +
                              " replicas in one process (copied every step, a thread each, gradients summed back)",
                    train(s, Mode::data_parallel, GradLayout::copy, no_job, world, false)},
                   "data_parallel", world));
        devices["data_parallel"] = world;
      } else {
        t.notes["data_parallel"] = "not run: rank 0 sees " + std::to_string(visible) + " GPU(s), DataParallel over " +
                                   std::to_string(world) + " needs them all in one process (one GPU per task?)";
      }
    }
    t.variants.push_back(spread({"ddp",
                                 (world > 1 ? "DDP over " + std::to_string(world) + " processes (" + backend + "), " +
                                                  std::to_string(s.batch) + " samples each"
                                            : "DDP at world size 1: a " + backend + " group of one") +
                                     "; " + ddp_words + ", " + avg_words,
                                 train(s, Mode::ddp, GradLayout::copy, job("ddp"), world, world == 1)},
                                "ddp", world));
    t.variants.push_back(
        spread({"ddp_bucket_view", "as ddp, but " + view_words + ": no copy back, no separate gradient tensors",
                train(s, Mode::ddp, GradLayout::bucket_view, job("ddp_bucket_view"), world, world == 1)},
               "ddp", world));
    devices["ddp"] = devices["ddp_bucket_view"] = world;
    if (world > 1) {
      t.notes["ran_on"] =
          "single_device" + std::string(devices.count("data_parallel") ? " and data_parallel" : "") +
          ": rank 0 alone (the other ranks wait on the host, outside any collective); ddp*: " + std::to_string(world) +
          " processes, one " + dev_words + " each (" + backend +
          "), every step started on all ranks together (handshake through the store)";
      if (!gpu)
        t.notes["data_parallel_on_cpu"] =
            "DataParallel needs GPUs: on the CPU data_parallel is a DP-equivalent in one process (its threads share "
            "OMP_NUM_THREADS), so it shows the method's costs, not a GPU result";
    } else {
      t.notes["ran_on"] = "one process, one " + dev_words + ": ddp is DDP at world size 1 (" + backend +
                          "), its overhead over the plain step";
    }
    t.derive = [devices](const CaseResult& r) { return derive_scaling(r, devices); };
    t.skip_reason = unavailable;
    if (!t.skip_reason.empty()) t.notes = json::object();
    out.push_back(t);

    // ResNet-50: DDP's overhead at world size 1, where users know the step.
    {
      const TrainSpec rs = resnet_spec();
      Case c;
      c.process_bound = true;
      c.name = "resnet50_train_ws1";
      c.params = {{"batch", rs.batch},
                  {"image", rs.image},
                  {"classes", rs.classes},
                  {"parameters", ddp::parameter_count(rs)},
                  {"bucket_cap_bytes", rs.bucket_cap_bytes},
                  {"world_size", 1},
                  {"backend", backend},
                  {"device", to_string(kind)}};
      c.timing = TimingMode::sync;
      c.units = units_for(rs, static_cast<double>(rs.batch));
      c.verify = verify_first_step();
      auto rjob = [&](const std::string& v) { return ddp::Job{kExperiment, c.name, v}; };
      c.variants = {spread({"single_device", "one GPU, no communication",
                            train(rs, Mode::single_device, GradLayout::copy, no_job, 1, false)},
                           "single", 1),
                    spread({"ddp", "DDP at world size 1 (nccl group of one); " + ddp_words,
                            train(rs, Mode::ddp, GradLayout::copy, rjob("ddp"), 1, true)},
                           "ddp", 1),
                    spread({"ddp_bucket_view", "as ddp, but " + view_words,
                            train(rs, Mode::ddp, GradLayout::bucket_view, rjob("ddp_bucket_view"), 1, true)},
                           "ddp", 1)};
      c.notes["ran_on"] = "one process, one GPU: DDP's overhead on a model whose step users know";
      c.derive = [](const CaseResult& r) { return derive_scaling(r, {{"ddp", 1}, {"ddp_bucket_view", 1}}); };
      c.skip_reason = !unavailable.empty() ? unavailable
                      : !gpu               ? "CUDA only (a ResNet-50 training step takes seconds on a CPU)"
                      : world > 1 ? "world size 1 only (DDP's overhead); mlp_train_ws" + std::to_string(world) +
                                        " is the N-rank comparison"
                                  : "";
      if (!c.skip_reason.empty()) c.notes = json::object();
      out.push_back(c);
    }

    // The all-reduce alone.
    Case a;
    a.process_bound = true;
    a.name = "allreduce_ws" + std::to_string(world);
    a.params = params;
    a.params["bytes"] = grad_bytes;
    a.timing = TimingMode::sync;
    a.units.bytes = grad_bytes;
    a.variants = {Variant{
        "allreduce",
        "all-reduce (sum) of the gradient bytes in one fp32 buffer across " + std::to_string(world) + " processes",
        [grad_bytes, name = a.name] {
          return std::make_unique<AllreduceBench>(static_cast<std::int64_t>(grad_bytes),
                                                  ddp::Job{kExperiment, name, "allreduce"});
        }}};
    a.verify = verify_first_step();
    if (world > 1)
      a.notes["ran_on"] = std::to_string(world) + " processes, one " + dev_words + " each (" + backend + ")";
    a.derive = [grad_bytes, world](const CaseResult& r) { return derive_busbw(r, grad_bytes, world); };
    a.skip_reason = !unavailable.empty() ? unavailable
                    : world < 2          ? "all-reduce bandwidth needs 2+ ranks: run under torchrun --nproc-per-node N "
                                           "or srun"
                                         : "";
    if (!a.skip_reason.empty()) a.notes = json::object();
    out.push_back(a);

    // One process: DataParallel over every visible GPU vs one, at one global batch.
    Case d;
    const int dp_devices = std::max(1, visible);
    d.name = "data_parallel_" + std::to_string(dp_devices) + (gpu ? "gpu" : "dev");
    d.params = params;
    d.params["global_batch"] = s.batch * dp_devices;
    d.timing = TimingMode::sync;
    d.units = units_for(s, static_cast<double>(s.batch * dp_devices));
    d.variants = {spread({"single_device", "one GPU, the whole global batch",
                          train(s, Mode::single_device, GradLayout::copy, no_job, dp_devices, false)},
                         "single", 1),
                  spread({"data_parallel",
                          "torch::nn::parallel::data_parallel over " + std::to_string(dp_devices) +
                              " GPUs: scatter, replicate, gather every step",
                          train(s, Mode::data_parallel, GradLayout::copy, no_job, dp_devices, false)},
                         "data_parallel", dp_devices)};
    d.verify = verify_first_step();
    d.notes["ran_on"] = "one process, " + std::to_string(dp_devices) + " GPUs";
    d.derive = [dp_devices](const CaseResult& r) { return derive_scaling(r, {{"data_parallel", dp_devices}}); };
    if (!gpu) {
      d.skip_reason =
          "torch::nn::parallel::data_parallel needs CUDA devices; the CPU DP-equivalent runs under "
          "torchrun --nproc-per-node N (in mlp_train_wsN)";
    } else if (world > 1) {
      d.skip_reason =
          "under " + std::to_string(world) + " ranks, mlp_train_ws" + std::to_string(world) + " holds data_parallel";
    } else if (dp_devices < 2) {
      d.skip_reason =
          "DataParallel vs DDP needs 2+ GPUs (one visible): run torchrun --nproc-per-node N on a node "
          "with N GPUs for the comparison";
    }
    if (!d.skip_reason.empty()) d.notes = json::object();
    out.push_back(d);
    return out;
  }
};

OPTBENCH_REGISTER_EXPERIMENT(DataParallelExperiment);

}  // namespace
}  // namespace optbench::workloads
