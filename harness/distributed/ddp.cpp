#include "harness/distributed/ddp.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/distributed/session.h"

namespace optbench::distributed {
namespace {

using Clock = std::chrono::steady_clock;

std::string first_line(std::string s) {
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<BucketParam>& params, std::int64_t cap_bytes) {
  std::vector<std::vector<std::size_t>> buckets;
  std::vector<std::size_t> current;
  std::int64_t bytes = 0;
  int key = 0;
  for (std::size_t n = params.size(); n-- > 0;) {
    const BucketParam& p = params[n];
    if (!current.empty() && (p.key != key || (cap_bytes > 0 && bytes + p.bytes > cap_bytes))) {
      buckets.push_back(std::move(current));
      current.clear();
      bytes = 0;
    }
    current.push_back(n);
    bytes += p.bytes;
    key = p.key;
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  return buckets;
}

double allreduce_algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0.0; }

double allreduce_busbw(double bytes, double seconds, int ranks) {
  if (ranks < 2) return 0.0;
  return allreduce_algbw(bytes, seconds) * 2.0 * (ranks - 1) / ranks;
}

struct DistributedDataParallel::Hook : torch::autograd::FunctionPostHook {
  Hook(DistributedDataParallel* d, std::size_t i) : ddp(d), index(i) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    ddp->mark_ready(index);
    return outputs;
  }
  DistributedDataParallel* ddp;
  std::size_t index;
};

DistributedDataParallel::DistributedDataParallel(std::vector<at::Tensor> params, Session& session, DdpOptions opts)
    : params_(std::move(params)), session_(session), opts_(opts) {
  if (params_.empty()) throw std::invalid_argument("DistributedDataParallel: no parameters");
  std::map<std::pair<int, std::string>, int> keys;
  std::vector<BucketParam> sizes;
  for (const auto& p : params_) {
    if (!p.requires_grad() || !p.is_leaf())
      throw std::invalid_argument("DistributedDataParallel: parameters must be leaves that require grad");
    const auto k = std::make_pair(static_cast<int>(p.scalar_type()), p.device().str());
    const int key = keys.emplace(k, static_cast<int>(keys.size())).first->second;
    sizes.push_back({static_cast<std::int64_t>(p.numel() * p.element_size()), key});
    grad_bytes_ += sizes.back().bytes;
  }
  buckets_ = assign_buckets(sizes, opts_.bucket_cap_bytes);
  bucket_of_.resize(params_.size());
  offset_in_bucket_.resize(params_.size());
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::int64_t numel = 0;
    for (std::size_t i : buckets_[b]) {
      bucket_of_[i] = b;
      offset_in_bucket_[i] = static_cast<std::size_t>(numel);
      numel += params_[i].numel();
    }
    bucket_numel_.push_back(numel);
    const bool control = opts_.control_slot && b + 1 == buckets_.size();
    const auto& first = params_[buckets_[b].front()];
    flat_.push_back(at::zeros({numel + (control ? 1 : 0)}, first.options().requires_grad(false)));
  }
  work_.resize(buckets_.size());
  param_ready_.assign(params_.size(), false);
  ready_count_.assign(buckets_.size(), 0);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    auto acc = torch::autograd::impl::grad_accumulator(params_[i]);
    if (!acc) throw std::invalid_argument("DistributedDataParallel: a parameter has no gradient accumulator");
    hook_keys_.push_back(acc->add_post_hook(std::make_unique<Hook>(this, i)));
    accumulators_.push_back(std::move(acc));
  }
}

DistributedDataParallel::~DistributedDataParallel() {
  for (std::size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hook_keys_[i]);
}

void DistributedDataParallel::broadcast_parameters(int root) {
  session_.check_usable();
  at::NoGradGuard no_grad;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    auto payload = flat_[b].narrow(0, 0, bucket_numel_[b]);
    for (std::size_t i : buckets_[b])
      payload.narrow(0, static_cast<std::int64_t>(offset_in_bucket_[i]), params_[i].numel())
          .copy_(params_[i].detach().reshape(-1));
    try {
      compat::wait(compat::broadcast_async(session_.collectives(), payload, root), session_.timeout(),
                   session_.host_blocking());
    } catch (const std::exception& e) {
      session_.mark_broken(e.what());
      throw std::runtime_error("broadcast of the parameters from rank " + std::to_string(root) +
                               " failed (a peer rank may have died or hung): " + first_line(e.what()));
    }
    for (std::size_t i : buckets_[b])
      params_[i].detach().copy_(
          payload.narrow(0, static_cast<std::int64_t>(offset_in_bucket_[i]), params_[i].numel()).view_as(params_[i]));
  }
}

void DistributedDataParallel::mark_ready(std::size_t param) {
  std::lock_guard<std::mutex> lock(mu_);
  if (param_ready_[param] || session_.broken()) return;
  param_ready_[param] = true;
  ++ready_count_[bucket_of_[param]];
  launch_ready_prefix();
}

void DistributedDataParallel::launch_ready_prefix() {
  // In bucket order only, so every rank issues the same collectives in the same order.
  while (next_launch_ < buckets_.size() && ready_count_[next_launch_] == buckets_[next_launch_].size()) {
    launch(next_launch_++);
    if (!in_finish_) ++overlapped_;
  }
}

void DistributedDataParallel::launch(std::size_t b) {
  at::NoGradGuard no_grad;
  auto& flat = flat_[b];
  for (std::size_t i : buckets_[b]) {
    auto slice = flat.narrow(0, static_cast<std::int64_t>(offset_in_bucket_[i]), params_[i].numel());
    const auto& g = params_[i].grad();
    if (g.defined()) {
      slice.copy_(g.reshape(-1));
    } else {
      slice.zero_();  // unused in this step: contributes nothing
    }
  }
  if (opts_.control_slot && b + 1 == buckets_.size()) flat.narrow(0, bucket_numel_[b], 1).fill_(control_value_);
  try {
    work_[b] = compat::allreduce_async(session_.collectives(), flat);
  } catch (const std::exception& e) {
    session_.mark_broken(e.what());
    throw;
  }
}

void DistributedDataParallel::finish_gradients() {
  fault_injection_point(session_.rank());
  session_.check_usable();
  const auto t0 = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_finish_ = true;
    for (std::size_t i = 0; i < params_.size(); ++i) param_ready_[i] = true;
    for (std::size_t b = next_launch_; b < buckets_.size(); ++b) ready_count_[b] = buckets_[b].size();
    launch_ready_prefix();
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    try {
      compat::wait(work_[b], session_.timeout(), session_.host_blocking());
    } catch (const std::exception& e) {
      session_.mark_broken(e.what());
      throw std::runtime_error("all-reduce of gradient bucket " + std::to_string(b) + " of " +
                               std::to_string(buckets_.size()) + " failed (a peer rank may have died or hung): " +
                               first_line(e.what()));
    }
    work_[b].reset();
  }
  last_wait_s_ = std::chrono::duration<double>(Clock::now() - t0).count();

  at::NoGradGuard no_grad;
  const int world = session_.world_size();
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    auto grads = flat_[b].narrow(0, 0, bucket_numel_[b]);
    if (world > 1) grads.div_(world);
    for (std::size_t i : buckets_[b]) {
      auto avg = grads.narrow(0, static_cast<std::int64_t>(offset_in_bucket_[i]), params_[i].numel())
                     .view_as(params_[i]);
      auto& g = params_[i].mutable_grad();
      if (g.defined()) {
        g.copy_(avg);
      } else {
        g = avg.clone();
      }
    }
  }

  std::lock_guard<std::mutex> lock(mu_);
  std::fill(param_ready_.begin(), param_ready_.end(), false);
  std::fill(ready_count_.begin(), ready_count_.end(), 0);
  next_launch_ = 0;
  last_overlapped_ = overlapped_;
  overlapped_ = 0;
  in_finish_ = false;
  ++steps_;
}

float DistributedDataParallel::control_result() {
  if (!opts_.control_slot) return 0.0f;
  return flat_.back().narrow(0, bucket_numel_.back(), 1).item<float>();
}

}  // namespace optbench::distributed
