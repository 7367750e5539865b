// Checklist: DistributedDataParallel instead of DataParallel ("Faster
// (multi-process)"). One training step of an MLP (fp32, TF32 off):
//  - plain `optbench run` (one process): single device (baseline) vs DDP at
//    world size 1 (a process group of one: what DDP costs when it cannot help) vs
//    torch::nn::parallel::data_parallel over the visible GPUs (CUDA only);
//  - under `optbench launch --nproc N` / torchrun / srun: single device on rank 0
//    (baseline) vs DDP over the N ranks (each its own batch, gradients
//    all-reduced in buckets overlapped with backward), and an all-reduce of the
//    gradient bytes alone for the bus bandwidth (nccl-tests' busbw).
// Only rank 0 measures and writes; the other ranks follow its DDP steps.
// Verification: the first step's averaged gradients must equal one process
// training on every rank's batch concatenated.
#include <torch/torch.h>

#if OPTBENCH_WITH_CUDA
#include <torch/nn/parallel/data_parallel.h>
#endif

#include <ATen/CPUGeneratorImpl.h>

#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "harness/distributed/ddp.h"
#include "harness/distributed/session.h"
#include "harness/registry.h"
#include "harness/signals.h"
#include "workloads/common.h"

namespace optbench::workloads {
namespace {

namespace dist = optbench::distributed;
using json = nlohmann::json;

constexpr const char* kExperiment = "data_parallel";

struct Spec {
  std::int64_t batch, width, depth, classes;  // batch per rank
  std::int64_t bucket_cap_bytes;
};

Spec spec_for(DeviceKind d) {
  // DDP's default 25 MB buckets. GPU: ~36M parameters, 143 MB of gradients in 6
  // buckets. CPU: small enough for the reference BLAS (1 MB, one bucket; Gloo on
  // a small machine pays ~1 ms per collective, so smaller buckets only add latency).
  return d == DeviceKind::cuda ? Spec{256, 2048, 8, 1024, 25 << 20} : Spec{32, 256, 4, 16, 25 << 20};
}

double parameter_count(const Spec& s) {
  return static_cast<double>(s.depth * (s.width * s.width + s.width) + s.width * s.classes + s.classes);
}

// Matmul FLOPs of forward + backward (2 + 4 per multiply-add) for `samples`.
double train_flops(const Spec& s, double samples) {
  return 6.0 * samples * static_cast<double>(s.depth * s.width * s.width + s.width * s.classes);
}

torch::nn::Sequential make_mlp(const Spec& s, std::uint64_t seed) {
  torch::manual_seed(seed);
  torch::nn::Sequential net;
  for (std::int64_t i = 0; i < s.depth; ++i) {
    net->push_back(torch::nn::Linear(s.width, s.width));
    net->push_back(torch::nn::GELU());
  }
  net->push_back(torch::nn::Linear(s.width, s.classes));
  return net;
}

// Rank r's batch: the same on every run and every variant.
std::pair<torch::Tensor, torch::Tensor> make_batch(const Spec& s, int rank, const torch::Device& device) {
  auto x = seeded_randn({s.batch, s.width}, torch::TensorOptions().device(device), 1000 + rank);
  auto gen = at::detail::createCPUGenerator(2000 + static_cast<std::uint64_t>(rank));
  auto y = at::randint(s.classes, {s.batch}, gen, at::TensorOptions().dtype(at::kLong)).to(device);
  return {x, y};
}

// Gradients of one step of one process on the batches of ranks 0..world-1
// concatenated, from rank 0's initial weights.
std::vector<torch::Tensor> reference_gradients(const Spec& s, int world, const torch::Device& device) {
  compat::Tf32MatmulGuard tf32(false);
  auto net = make_mlp(s, 0);
  net->to(device);
  std::vector<torch::Tensor> xs, ys;
  for (int r = 0; r < world; ++r) {
    auto [x, y] = make_batch(s, r, device);
    xs.push_back(x);
    ys.push_back(y);
  }
  torch::nn::functional::cross_entropy(net->forward(torch::cat(xs)), torch::cat(ys)).backward();
  std::vector<torch::Tensor> g;
  for (const auto& p : net->parameters()) g.push_back(p.grad().detach().clone());
  return g;
}

enum class Mode { single_device, ddp, data_parallel };

struct JobName {
  std::string case_name, variant;
};

class MlpTrain final : public dist::DistributedWorkload {
 public:
  // ddp: over the launched group, or (local_group) a private group of one.
  MlpTrain(const Spec& s, Mode mode, DeviceKind kind, JobName job, bool local_group) : spec_(s), mode_(mode) {
    device_ = torch_device(kind);
    if (mode_ == Mode::ddp) {
      if (local_group) {
        owned_ = dist::Session::local(kind);
        session_ = owned_.get();
      } else {
        session_ = dist::current_session();
        if (!session_) throw std::runtime_error("DDP across ranks needs a launched run (optbench launch / torchrun)");
      }
      session_->announce(kExperiment, job.case_name, job.variant);  // rank 0; the others build this too
      device_ = session_->device();
      rank_ = session_->rank();
      world_ = session_->world_size();
    }
    try {
      // Ranks > 0 start from other weights on purpose: the broadcast must fix that.
      net_ = make_mlp(s, rank_ == 0 ? 0 : 100 + static_cast<std::uint64_t>(rank_));
      net_->to(device_);
      opt_ = std::make_unique<torch::optim::SGD>(net_->parameters(), torch::optim::SGDOptions(0.01));
      std::tie(x_, y_) = make_batch(s, rank_, device_);
      if (mode_ == Mode::ddp) {
        ddp_ = std::make_unique<dist::DistributedDataParallel>(
            net_->parameters(), *session_, dist::DdpOptions{s.bucket_cap_bytes, /*control_slot=*/world_ > 1});
        ddp_->broadcast_parameters(0);
      }
    } catch (const std::exception& e) {
      // The other ranks are somewhere in this variant's collectives: nothing later matches up.
      if (session_ && world_ > 1) session_->mark_broken(e.what());
      throw;
    }
#if OPTBENCH_WITH_CUDA
    if (mode_ == Mode::data_parallel)
      for (int i = 0; i < static_cast<int>(torch::cuda::device_count()); ++i)
        dp_devices_.emplace_back(torch::kCUDA, static_cast<torch::DeviceIndex>(i));
#else
    if (mode_ == Mode::data_parallel) throw std::runtime_error("data_parallel needs CUDA");
#endif
  }

  ~MlpTrain() override {
    // Rank 0's last word to the others: one more step that says "no more".
    if (ddp_ && world_ > 1 && rank_ == 0 && !session_->broken()) {
      try {
        run_step(0.0f);
      } catch (const std::exception&) {
      }
    }
  }

  void step() override { run_step(1.0f); }

  void follow() override {
    for (;;) {
      if (stop_requested()) throw std::runtime_error("stopped by a signal");
      run_step(0.0f);
      if (ddp_->control_result() == 0.0f) return;
    }
  }

  nlohmann::json metrics() override {
    if (!ddp_) return json::object();
    const double n = static_cast<double>(std::max<std::int64_t>(1, ddp_steps_));
    return {{"world_size", world_},
            {"backend", session_->backend()},
            {"device", device_.str()},
            {"buckets", ddp_->num_buckets()},
            {"gradient_bytes", ddp_->gradient_bytes()},
            // Host time finish_gradients waited for the all-reduces: what backward
            // did not hide with Gloo; with NCCL the wait is on the stream, not the host.
            {"comm_wait_measured", session_->host_blocking()},
            {"mean_comm_wait_s", comm_wait_s_ / n},
            {"mean_buckets_overlapped", static_cast<double>(overlapped_) / n},
            {"steps", ddp_steps_}};
  }

  // "" when the first step's (averaged) gradients match one process on the
  // concatenated batch.
  std::string check_first_step() const {
    if (first_grads_.empty()) return "no step was taken";
    const auto ref = reference_gradients(spec_, world_, device_);
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, normalised_error(first_grads_[i], ref[i]));
    const double tol = device_.is_cuda() ? 1e-4 : 1e-5;
    if (worst <= tol) return "";
    return "first-step gradients differ from one process on the " + std::to_string(world_) +
           " ranks' batches concatenated: normalised error " + std::to_string(worst) + " > " + std::to_string(tol);
  }

 private:
  void run_step(float control) {
    compat::Tf32MatmulGuard tf32(false);
    compat::zero_grad(*opt_, /*set_to_none=*/true);  // the same on LibTorch 1.13 and 2.x
    torch::Tensor logits;
#if OPTBENCH_WITH_CUDA
    if (mode_ == Mode::data_parallel) {
      logits = torch::nn::parallel::data_parallel(net_, x_, dp_devices_);
    } else {
      logits = net_->forward(x_);
    }
#else
    logits = net_->forward(x_);
#endif
    auto loss = torch::nn::functional::cross_entropy(logits, y_);
    if (ddp_) ddp_->set_control(control);
    loss.backward();
    if (ddp_) {
      ddp_->finish_gradients();
      comm_wait_s_ += ddp_->last_wait_s();
      overlapped_ += ddp_->last_overlapped_buckets();
      ++ddp_steps_;
    }
    if (first_grads_.empty())
      for (const auto& p : net_->parameters()) first_grads_.push_back(p.grad().detach().clone());
    opt_->step();
  }

  Spec spec_;
  Mode mode_;
  torch::Device device_{torch::kCPU};
  std::shared_ptr<dist::Session> owned_;
  dist::Session* session_ = nullptr;
  int rank_ = 0, world_ = 1;
  torch::nn::Sequential net_{nullptr};
  std::unique_ptr<torch::optim::SGD> opt_;
  std::unique_ptr<dist::DistributedDataParallel> ddp_;
  std::vector<torch::Device> dp_devices_;
  torch::Tensor x_, y_;
  std::vector<torch::Tensor> first_grads_;
  double comm_wait_s_ = 0;
  std::int64_t overlapped_ = 0, ddp_steps_ = 0;
};

// An all-reduce of the gradients' bytes in one flat fp32 buffer, on every rank:
// nccl-tests' measurement, for the bus bandwidth DDP gets.
class AllreduceBench final : public dist::DistributedWorkload {
 public:
  AllreduceBench(std::int64_t bytes, JobName job) {
    session_ = dist::current_session();
    if (!session_) throw std::runtime_error("an all-reduce across ranks needs a launched run");
    session_->announce(kExperiment, job.case_name, job.variant);
    try {
      const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(session_->device());
      numel_ = bytes / 4;
      // Result check first (nccl-tests -c): rank r contributes r+1 everywhere.
      auto check = torch::full({numel_}, static_cast<float>(session_->rank() + 1), opts);
      reduce(check);
      const int n = session_->world_size();
      const double expect = n * (n + 1) / 2.0;
      const double lo = check.min().item<double>(), hi = check.max().item<double>();
      if (lo != expect || hi != expect)
        check_ = "all-reduce result [" + std::to_string(lo) + ", " + std::to_string(hi) + "], expected " +
                 std::to_string(expect);
      buffer_ = torch::zeros({numel_ + 1}, opts);  // zeros stay zeros; the last float is the control slot
    } catch (const std::exception& e) {
      session_->mark_broken(e.what());
      throw;
    }
  }

  ~AllreduceBench() override {
    if (session_->rank() == 0 && session_->world_size() > 1 && !session_->broken()) {
      try {
        run(0.0f);
      } catch (const std::exception&) {
      }
    }
  }

  void step() override { run(1.0f); }

  void follow() override {
    for (;;) {
      if (stop_requested()) throw std::runtime_error("stopped by a signal");
      run(0.0f);
      if (buffer_[numel_].item<float>() == 0.0f) return;
    }
  }

  nlohmann::json metrics() override {
    return {{"world_size", session_->world_size()}, {"backend", session_->backend()}, {"bytes", numel_ * 4}};
  }

  const std::string& check() const { return check_; }

 private:
  void reduce(const torch::Tensor& t) {
    session_->check_usable();
    try {
      compat::wait(compat::allreduce_async(session_->collectives(), t), session_->timeout(),
                   session_->host_blocking());
    } catch (const std::exception& e) {
      session_->mark_broken(e.what());
      throw std::runtime_error(std::string("all-reduce failed (a peer rank may have died or hung): ") + e.what());
    }
  }

  void run(float control) {
    dist::fault_injection_point(session_->rank());
    buffer_.narrow(0, numel_, 1).fill_(session_->rank() == 0 ? control : 0.0f);
    reduce(buffer_);
  }

  dist::Session* session_ = nullptr;
  std::int64_t numel_ = 0;
  torch::Tensor buffer_;
  std::string check_;
};

const json* find_variant(const json& r, const std::string& name) {
  for (const auto& v : r.at("variants"))
    if (v.value("name", "") == name) return &v;
  return nullptr;
}

// Throughputs, the ratio against one device, and the scaling efficiency
// (ratio / devices) with its CI; at world size 1 DDP's overhead.
json derive_scaling(const json& r, const std::string& variant, int parallel) {
  json out = {{"parallel_devices", parallel}};
  const json& base = r.at("variants").at(0);
  const json* v = find_variant(r, variant);
  if (!v) return out;
  auto ips = [](const json& x) -> json {
    return x.contains("throughput") && x["throughput"].contains("items_per_s") ? x["throughput"]["items_per_s"]
                                                                               : json(nullptr);
  };
  out["single_device_samples_per_s"] = ips(base);
  out[variant + "_samples_per_s"] = ips(*v);
  for (const auto& c : r.value("comparisons", json::array())) {
    if (c.value("variant", "") != variant || !c.contains("speedup") || !c["speedup"].is_number()) continue;
    const double sp = c["speedup"].get<double>();
    out["throughput_ratio"] = sp;
    out["scaling_efficiency"] = sp / parallel;
    if (c.contains("ci_low")) {
      out["scaling_efficiency_ci"] = {c["ci_low"].get<double>() / parallel, c["ci_high"].get<double>() / parallel};
    }
    if (parallel == 1 && sp > 0) out["overhead_fraction"] = 1.0 / sp - 1.0;
  }
  if (v->contains("metrics") && v->at("metrics").contains("mean_comm_wait_s") && v->at("stats").is_object()) {
    const json& m = v->at("metrics");
    if (m.value("comm_wait_measured", false)) {
      const double wait = m["mean_comm_wait_s"].get<double>();
      const double step = v->at("stats")["median"].get<double>();
      out["mean_comm_wait_s"] = wait;
      if (step > 0) out["comm_wait_fraction"] = std::min(1.0, wait / step);
    }
    out["gradient_bytes"] = v->at("metrics").value("gradient_bytes", 0);
    out["buckets"] = v->at("metrics").value("buckets", 0);
    out["mean_buckets_overlapped"] = v->at("metrics").value("mean_buckets_overlapped", 0.0);
  }
  return out;
}

json derive_busbw(const json& r, double bytes, int ranks) {
  json out = {{"bytes", bytes}, {"ranks", ranks}, {"formula", "algbw = bytes/time; busbw = algbw * 2(n-1)/n"}};
  const json& v = r.at("variants").at(0);
  if (!v.contains("stats") || !v["stats"].is_object()) return out;
  const double med = v["stats"]["median"].get<double>(), best = v["stats"]["min"].get<double>();
  out["time_s"] = med;
  out["algbw_bytes_per_s"] = dist::allreduce_algbw(bytes, med);
  out["busbw_bytes_per_s"] = dist::allreduce_busbw(bytes, med, ranks);
  out["busbw_best_bytes_per_s"] = dist::allreduce_busbw(bytes, best, ranks);
  return out;
}

std::function<std::string(std::vector<Workload*>&)> verify_first_step() {
  return [](std::vector<Workload*>& ws) -> std::string {
    for (Workload* w : ws) {
      if (auto* t = dynamic_cast<MlpTrain*>(w)) {
        if (auto p = t->check_first_step(); !p.empty()) return p;
      } else if (auto* a = dynamic_cast<AllreduceBench*>(w)) {
        if (!a->check().empty()) return a->check();
      }
    }
    return "";
  };
}

class DataParallelExperiment final : public Experiment {
 public:
  ExperimentInfo info() const override {
    return {kExperiment,
            "DistributedDataParallel vs data_parallel vs one device",
            "DDP: one process per device, gradients all-reduced in buckets overlapped with backward",
            {"ddp_scaling"},
            "Training steps of an MLP (fp32). In one process: a single device (baseline) vs DDP at world size 1 "
            "(its overhead) vs torch::nn::parallel::data_parallel over the visible GPUs (CUDA). Under optbench "
            "launch / torchrun / srun with N ranks: one device on rank 0 vs DDP over N processes (throughput, "
            "scaling efficiency = ratio / N) and an all-reduce of the gradient bytes (nccl-tests busbw). Only rank 0 "
            "measures and writes results; first-step gradients are checked against one process on the "
            "concatenated batch."};
  }

  std::vector<Case> cases(const RunContext& ctx) const override {
    const bool gpu = ctx.device == DeviceKind::cuda;
    const Spec s = spec_for(ctx.device);
    dist::Session* session = dist::current_session();
    const int world = session ? session->world_size() : 1;
    const int visible = gpu ? static_cast<int>(torch::cuda::device_count()) : 0;
    const std::string backend = gpu ? "nccl" : "gloo";
    std::string unavailable;
    if (!gpu && !compat::kHaveGloo)
      unavailable = "this build has no Gloo process group (install libgloo-dev and rebuild)";
    if (gpu && !compat::kHaveNccl)
      unavailable = "this build has no NCCL process group (nccl.h was not found when building)";
    const double grad_bytes = 4.0 * parameter_count(s);
    const DeviceKind kind = ctx.device;

    json params = {{"batch_per_rank", s.batch},
                   {"width", s.width},
                   {"depth", s.depth},
                   {"classes", s.classes},
                   {"parameters", parameter_count(s)},
                   {"gradient_bytes", grad_bytes},
                   {"bucket_cap_bytes", s.bucket_cap_bytes},
                   {"world_size", world},
                   {"processes", world},
                   {"backend", backend},
                   {"device", to_string(kind)},
                   {"visible_cuda_devices", visible},
                   {"launcher", session ? session->info().source : "none"}};
    auto units_for = [&](double samples) {
      WorkUnits u;
      u.items = samples;
      u.flops = train_flops(s, samples);
      return u;
    };
    auto train = [=](Mode m, JobName job, bool local) {
      return [=] { return std::make_unique<MlpTrain>(s, m, kind, job, local); };
    };
    const std::string dev_words = gpu ? "GPU" : "CPU";

    // Training: single device vs DDP.
    Case t;
    t.name = "mlp_train_ws" + std::to_string(world);
    t.params = params;
    t.params["global_batch"] = s.batch * world;
    t.params["gpus_used"] = gpu ? world : 0;
    t.timing = TimingMode::sync;
    t.units = units_for(static_cast<double>(s.batch));
    Variant single{"single_device", "one process, one " + dev_words + ", no communication",
                   train(Mode::single_device, {t.name, "single_device"}, false)};
    Variant ddp{"ddp",
                world > 1 ? "DDP over " + std::to_string(world) + " processes (" + backend + "), " +
                                std::to_string(s.batch) + " samples each"
                          : "DDP at world size 1: a " + backend + " group of one, same batch",
                train(Mode::ddp, {t.name, "ddp"}, world == 1)};
    if (world > 1) ddp.units = units_for(static_cast<double>(s.batch * world));
    t.variants = {single, ddp};
    t.verify = verify_first_step();
    t.notes["ran_on"] = world > 1 ? "single_device: rank 0 alone, one " + dev_words + "; ddp: " +
                                        std::to_string(world) + " processes, one " + dev_words + " each (" +
                                        backend + ")"
                                  : "one process, one " + dev_words + ": ddp is DDP at world size 1 (" + backend +
                                        "), its overhead over the plain step";
    t.derive = [world](const json& r) { return derive_scaling(r, "ddp", world); };
    t.skip_reason = unavailable;
    if (!t.skip_reason.empty()) t.notes.erase("ran_on");

    // The all-reduce alone.
    Case a;
    a.name = "allreduce_ws" + std::to_string(world);
    a.params = params;
    a.params["bytes"] = grad_bytes;
    a.timing = TimingMode::sync;
    a.units.bytes = grad_bytes;
    a.variants = {Variant{"allreduce",
                          "all-reduce (sum) of the gradient bytes in one fp32 buffer across " +
                              std::to_string(world) + " processes",
                          [grad_bytes, name = a.name] {
                            return std::make_unique<AllreduceBench>(static_cast<std::int64_t>(grad_bytes),
                                                                    JobName{name, "allreduce"});
                          }}};
    a.verify = verify_first_step();
    if (world > 1) a.notes["ran_on"] = std::to_string(world) + " processes, one " + dev_words + " each (" + backend + ")";
    a.derive = [grad_bytes, world](const json& r) { return derive_busbw(r, grad_bytes, world); };
    a.skip_reason = !unavailable.empty() ? unavailable
                    : world < 2 ? "all-reduce bandwidth needs 2+ ranks: run under optbench launch --nproc N, "
                                  "torchrun or srun"
                                : "";
    if (!a.skip_reason.empty()) a.notes = json::object();

    // data_parallel: one process driving every visible GPU.
    Case d;
    const int dp_devices = std::max(1, visible);
    d.name = "data_parallel_" + std::to_string(dp_devices) + (gpu ? "gpu" : "dev");
    d.params = params;
    d.params["global_batch"] = s.batch;
    d.params["gpus_used"] = gpu ? dp_devices : 0;
    d.timing = TimingMode::sync;
    d.units = units_for(static_cast<double>(s.batch));
    d.variants = {Variant{"single_device", "one GPU, no replication", train(Mode::single_device, {}, false)},
                  Variant{"data_parallel",
                          "torch::nn::parallel::data_parallel over " + std::to_string(dp_devices) +
                              " GPU(s): scatter, replicate, gather every step (one device: a plain forward)",
                          train(Mode::data_parallel, {}, false)}};
    d.verify = verify_first_step();
    d.notes["ran_on"] = "one process, " + std::to_string(dp_devices) + " GPU(s)";
    if (dp_devices == 1)
      d.notes["claim"] = "DDP vs DataParallel needs 2+ GPUs; with one GPU data_parallel is a plain forward and ddp "
                         "(in mlp_train_ws1) a group of one, so they show only their overheads";
    d.derive = [dp_devices](const json& r) { return derive_scaling(r, "data_parallel", dp_devices); };
    if (!gpu) {
      d.skip_reason = "torch::nn::parallel::data_parallel needs CUDA devices (this run is on the CPU)";
    } else if (world > 1) {
      d.skip_reason = "not run under a multi-process launch: each rank owns its GPU";
    }
    if (!d.skip_reason.empty()) d.notes = json::object();
    return {t, a, d};
  }
};

OPTBENCH_REGISTER_EXPERIMENT(DataParallelExperiment);

}  // namespace
}  // namespace optbench::workloads
