#include "workloads/ddp/train.h"

#if OPTBENCH_WITH_CUDA
#include <torch/nn/parallel/data_parallel.h>  // includes CUDA headers
#endif

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include "harness/compat/numerics_flags.h"
#include "harness/compat/zero_grad.h"
#include "workloads/common.h"
#include "workloads/models/mlp.h"
#include "workloads/models/resnet.h"
#include "workloads/training/optimizer_scope.h"

namespace optbench::workloads::ddp {
namespace {

namespace dist = optbench::distributed;

torch::nn::Sequential make_mlp(const TrainSpec& s, std::int64_t depth) { return gelu_mlp(depth, s.width, s.classes); }

// Rank r's batch: the same on every run and every variant.
std::pair<torch::Tensor, torch::Tensor> rank_batch(const TrainSpec& s, int rank, const torch::Device& device) {
  const std::vector<std::int64_t> shape = s.net == Net::mlp ? std::vector<std::int64_t>{s.batch, s.width}
                                                            : std::vector<std::int64_t>{s.batch, 3, s.image, s.image};
  auto x = seeded_randn(shape, torch::TensorOptions().device(device), 1000 + rank);
  auto gen = at::detail::createCPUGenerator(2000 + static_cast<std::uint64_t>(rank));
  auto y = at::randint(s.classes, {s.batch}, gen, at::TensorOptions().dtype(at::kLong)).to(device);
  return {x, y};
}

// Ranks first..first+count-1's batches, concatenated.
std::pair<torch::Tensor, torch::Tensor> batches(const TrainSpec& s, int first, int count, const torch::Device& d) {
  std::vector<torch::Tensor> xs, ys;
  for (int r = first; r < first + count; ++r) {
    auto [x, y] = rank_batch(s, r, d);
    xs.push_back(x);
    ys.push_back(y);
  }
  return {torch::cat(xs), torch::cat(ys)};
}

}  // namespace

double parameter_count(const TrainSpec& s) {
  if (s.net == Net::resnet50) return 25.557e6;  // torchvision's resnet50 with 1000 classes
  return static_cast<double>(s.depth * (s.width * s.width + s.width) + s.width * s.classes + s.classes);
}

double train_flops(const TrainSpec& s, double samples) {
  if (s.net == Net::resnet50) return 3.0 * kResNet50ForwardFlops224 * samples;
  return 6.0 * samples * static_cast<double>(s.depth * s.width * s.width + s.width * s.classes);
}

Train::Train(const TrainSpec& s, Mode mode, GradLayout layout, DeviceKind kind, Job job, int ranks, bool local_group)
    : spec_(s), mode_(mode), ranks_(ranks) {
  device_ = torch_device(kind);
  if (mode_ == Mode::ddp && local_group) {
    owned_ = dist::Session::local(kind);
    session_ = owned_.get();
  } else {
    session_ = dist::current_session();
    if (!session_ && mode_ == Mode::ddp)
      throw std::runtime_error("DDP across ranks needs a launched run (torchrun / srun)");
  }
  if (session_) session_->check_usable();
  if (mode_ == Mode::ddp) {
    job_ = session_->announce(job.experiment, job.case_name, job.variant);  // rank 0; the others build this too
    device_ = session_->device();
    rank_ = session_->rank();
    world_ = session_->world_size();
  }
  try {
    // Ranks > 0 start from other weights on purpose: the broadcast must fix that.
    torch::manual_seed(rank_ == 0 ? 0 : 100 + static_cast<std::uint64_t>(rank_));
    if (spec_.net == Net::mlp) {
      // Test hook (OPTBENCH_FAULT_INJECT=rank=R,mode=mismatch): one layer more on rank R.
      const bool odd = mode_ == Mode::ddp && dist::fault_injected(rank_, "mismatch");
      mlp_ = make_mlp(spec_, spec_.depth + (odd ? 1 : 0));
      module_ = mlp_.ptr();
      net_forward_ = [this](const torch::Tensor& x) { return mlp_->forward(x); };
    } else {
      auto net = resnet50(spec_.classes);
      module_ = net.ptr();
      net_forward_ = [net](const torch::Tensor& x) mutable { return net->forward(x); };
    }
    module_->to(device_);
    opt_ = std::make_unique<torch::optim::SGD>(module_->parameters(), torch::optim::SGDOptions(0.01));
    if (mode_ == Mode::ddp) {
      std::tie(x_, y_) = rank_batch(spec_, rank_, device_);
      ddp_ = std::make_unique<DistributedDataParallel>(module_->parameters(), *session_,
                                                       DdpOptions{spec_.bucket_cap_bytes, layout});
      ddp_->broadcast_parameters(0);
    } else {
      std::tie(x_, y_) = batches(spec_, 0, ranks_, device_);
    }
  } catch (const std::exception& e) {
    // The other ranks are somewhere in this variant's collectives, or built
    // another model: the case's comparison is void, and so is what follows.
    if (mode_ == Mode::ddp && world_ > 1) session_->abort(e.what());
    throw;
  }
  if (mode_ == Mode::data_parallel) {
    if (spec_.net != Net::mlp) throw std::invalid_argument("data_parallel is implemented for the MLP only");
    for (int i = 0; i < ranks_; ++i)
      dp_devices_.push_back(device_.is_cuda() ? torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(i))
                                              : torch::Device(torch::kCPU));
  }
}

Train::~Train() {
  if (ddp_ && world_ > 1 && rank_ == 0) {
    try {
      session_->end_job(job_);
    } catch (const std::exception&) {
    }
  }
}

void Train::step() {
  if (ddp_) session_->start_step(job_);
  run_step();
}

void Train::follow_step() { run_step(); }

torch::Tensor Train::forward() {
  if (mode_ != Mode::data_parallel || dp_devices_.size() < 2) return net_forward_(x_);
#if OPTBENCH_WITH_CUDA
  if (device_.is_cuda()) return torch::nn::parallel::data_parallel(mlp_, x_, dp_devices_);
#endif
  // The CPU DP-equivalent of what DataParallel does every step (its C++
  // header needs CUDA): replicate (every parameter copied per replica), scatter
  // (the batch split), parallel_apply (one thread per replica), gather (the
  // outputs concatenated); reduce_replica_gradients() is its ReduceAdd.
  replicas_.clear();
  for (std::size_t i = 0; i < dp_devices_.size(); ++i)
    replicas_.push_back(std::dynamic_pointer_cast<torch::nn::SequentialImpl>(mlp_->clone()));
  auto chunks = x_.chunk(static_cast<std::int64_t>(replicas_.size()));
  std::vector<torch::Tensor> outs(chunks.size());
  const bool grad_mode = at::GradMode::is_enabled();
  at::parallel_for(0, static_cast<std::int64_t>(chunks.size()), 1, [&](std::int64_t b, std::int64_t e) {
    at::AutoGradMode mode(grad_mode);  // thread-local: the workers must record the graph too
    for (std::int64_t i = b; i < e; ++i) outs[i] = replicas_[i]->forward(chunks[i]);
  });
  return torch::cat(outs);
}

void Train::reduce_replica_gradients() {
  if (replicas_.empty()) return;
  torch::NoGradGuard no_grad;
  auto master = mlp_->parameters();
  for (std::size_t j = 0; j < master.size(); ++j) {
    torch::Tensor sum;
    for (const auto& r : replicas_) {
      const auto g = r->parameters()[j].grad();
      if (g.defined()) sum = sum.defined() ? sum.add_(g) : g.clone();
    }
    if (sum.defined()) master[j].mutable_grad() = sum;
  }
  replicas_.clear();
}

void Train::run_step() {
  compat::Tf32MatmulGuard tf32(false);
  // In a launched run every variant of the case stands or falls with the group.
  if (session_) session_->check_usable();
  compat::zero_grad(*opt_, /*set_to_none=*/true);  // set to none, as Python's default
  auto loss = torch::nn::functional::cross_entropy(forward(), y_);
  if (ddp_ && dist::fault_injected(rank_, "second_backward")) loss.backward({}, /*retain_graph=*/true);
  loss.backward();
  reduce_replica_gradients();
  if (ddp_) {
    ddp_->finish_gradients();
    comm_wait_s_ += ddp_->last_wait_s();
    overlapped_ += ddp_->last_overlapped_buckets();
    ++ddp_steps_;
  }
  if (first_grads_.empty())
    for (const auto& p : module_->parameters()) first_grads_.push_back(p.grad().detach().clone());
  scoped_step(*opt_);
  if (ddp_) ddp_->wait_completed();  // after the optimizer is enqueued: the GPU stays busy
}

nlohmann::json Train::metrics() {
  if (!ddp_) {
    nlohmann::json m = {{"processes", 1}, {"device", device_.str()}, {"global_batch", spec_.batch * ranks_}};
    if (mode_ == Mode::data_parallel) m["replicas"] = dp_devices_.size();
    return m;
  }
  const double n = static_cast<double>(std::max<std::int64_t>(1, ddp_steps_));
  return {{"world_size", world_},
          {"processes", world_},
          {"backend", session_->backend()},
          {"device", device_.str()},
          {"global_batch", spec_.batch * world_},
          {"buckets", ddp_->num_buckets()},
          {"gradient_bytes", ddp_->gradient_bytes()},
          {"grad_layout", ddp_->layout() == GradLayout::copy ? "copy" : "bucket_view"},
          {"averaging", ddp_->averages_in_reduction() ? "ReduceOp::AVG in the all-reduce"
                        : world_ > 1                  ? "scaled by 1/world while copied into the bucket"
                                                      : "none (world size 1)"},
          // Host time finish_gradients waited for the all-reduces: what backward
          // did not hide with Gloo; with NCCL the wait is on the stream, not the host.
          {"comm_wait_measured", session_->host_blocking()},
          {"mean_comm_wait_s", comm_wait_s_ / n},
          {"mean_buckets_overlapped", static_cast<double>(overlapped_) / n},
          {"steps", ddp_steps_}};
}

std::vector<torch::Tensor> Train::reference_gradients() const {
  compat::Tf32MatmulGuard tf32(false);
  torch::manual_seed(0);
  std::shared_ptr<torch::nn::Module> m;
  std::function<torch::Tensor(const torch::Tensor&)> fwd;
  if (spec_.net == Net::mlp) {
    auto net = make_mlp(spec_, spec_.depth);
    m = net.ptr();
    fwd = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  } else {
    auto net = resnet50(spec_.classes);
    m = net.ptr();
    fwd = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  }
  m->to(device_);
  const int ranks = mode_ == Mode::ddp ? world_ : ranks_;
  auto [x, y] = batches(spec_, 0, ranks, device_);
  torch::nn::functional::cross_entropy(fwd(x), y).backward();
  std::vector<torch::Tensor> g;
  for (const auto& p : m->parameters()) g.push_back(p.grad().detach().clone());
  return g;
}

std::string Train::check_first_step() const {
  if (first_grads_.empty()) return "no step was taken";
  const auto ref = reference_gradients();
  if (ref.size() != first_grads_.size()) return "the reference model has another number of parameters";
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    worst = std::max(worst, normalised_error(first_grads_[i].to(ref[i].device()), ref[i]));
  // ResNet-50 on CUDA: cuDNN's convolutions (TF32 on by default) differ run to run.
  const double tol = spec_.net == Net::resnet50 ? 1e-3 : device_.is_cuda() ? 1e-4 : 1e-5;
  if (worst <= tol) return "";
  const int ranks = mode_ == Mode::ddp ? world_ : ranks_;
  return "first-step gradients differ from one process on the " + std::to_string(ranks) +
         " ranks' batches concatenated: normalised error " + std::to_string(worst) + " > " + std::to_string(tol);
}

}  // namespace optbench::workloads::ddp
