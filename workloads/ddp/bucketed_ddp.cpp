#include "workloads/ddp/bucketed_ddp.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/distributed/session.h"

namespace optbench::workloads::ddp {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t fnv1a(std::uint64_t h, std::int64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= static_cast<std::uint64_t>(v >> (8 * i)) & 0xff;
    h *= 1099511628211ull;
  }
  return h;
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

std::vector<std::int64_t> parameter_signature(const std::vector<at::Tensor>& params, std::int64_t bucket_cap_bytes) {
  std::int64_t numel = 0;
  std::uint64_t h = 1469598103934665603ull;
  for (const auto& p : params) {
    numel += p.numel();
    h = fnv1a(h, static_cast<std::int64_t>(p.scalar_type()));
    h = fnv1a(h, p.dim());
    for (auto s : p.sizes()) h = fnv1a(h, s);
  }
  return {static_cast<std::int64_t>(params.size()), numel, static_cast<std::int64_t>(h >> 1), bucket_cap_bytes};
}

std::string signature_mismatch(const std::vector<std::vector<std::int64_t>>& per_rank) {
  bool same = true;
  for (const auto& s : per_rank) same = same && s == per_rank.front();
  if (same) return "";
  std::string msg =
      "the ranks do not hold the same parameters (DDP needs the same model, in the same order, on "
      "every rank):";
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const auto& s = per_rank[r];
    char hash[24];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(s.at(2)));
    msg += (r ? "; rank " : " rank ") + std::to_string(r) + ": " + std::to_string(s.at(0)) + " tensors, " +
           std::to_string(s.at(1)) + " elements, shapes " + hash + ", bucket cap " + std::to_string(s.at(3)) + " B";
  }
  return msg;
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

DistributedDataParallel::DistributedDataParallel(std::vector<at::Tensor> params, distributed::Session& session,
                                                 DdpOptions opts)
    : params_(std::move(params)), session_(session), opts_(opts) {
  if (params_.empty()) throw std::invalid_argument("DistributedDataParallel: no parameters");
  session_.check_usable();
  const int world = session_.world_size();
  avg_op_ = compat::supports_avg(session_.backend()) && world > 1;
  inv_world_ = at::scalar_tensor(1.0 / world, at::TensorOptions().dtype(at::kDouble));

  // Before anything is sized by the parameters: do all ranks hold the same?
  {
    const auto mine = parameter_signature(params_, opts_.bucket_cap_bytes);
    const auto opts_i64 = at::TensorOptions().dtype(at::kLong).device(session_.device());
    const auto in = at::tensor(mine, at::TensorOptions().dtype(at::kLong)).to(session_.device());
    std::vector<at::Tensor> out;
    for (int r = 0; r < world; ++r) out.push_back(at::empty({static_cast<std::int64_t>(mine.size())}, opts_i64));
    session_.wait(compat::allgather_async(session_.collectives(), out, in), "the parameter check across ranks");
    std::vector<std::vector<std::int64_t>> all;
    for (const auto& t : out) {
      const auto c = t.cpu();
      all.emplace_back(c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel());
    }
    // Every rank sees the same table and throws the same error: the group stays usable.
    if (auto problem = signature_mismatch(all); !problem.empty()) throw std::runtime_error(problem);
  }

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
  views_.resize(params_.size());
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::int64_t numel = 0;
    for (std::size_t i : buckets_[b]) numel += params_[i].numel();
    const bool last = b + 1 == buckets_.size();
    const auto& first = params_[buckets_[b].front()];
    flat_.push_back(at::zeros({numel + (last ? static_cast<std::int64_t>(params_.size()) : 0)},
                              first.options().requires_grad(false)));
    bucket_numel_.push_back(numel);
    std::int64_t offset = 0;
    for (std::size_t i : buckets_[b]) {
      bucket_of_[i] = b;
      views_[i] = flat_[b].narrow(0, offset, params_[i].numel()).view(params_[i].sizes());
      offset += params_[i].numel();
    }
    if (last) used_flags_ = flat_[b].narrow(0, numel, static_cast<std::int64_t>(params_.size()));
  }
  work_.resize(buckets_.size());
  param_ready_.assign(params_.size(), false);
  used_.assign(params_.size(), false);
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

void DistributedDataParallel::fail(const std::string& why) {
  if (failed_.empty()) failed_ = why;
  session_.abort(why);
}

void DistributedDataParallel::check_usable() const {
  if (!failed_.empty()) throw std::runtime_error("DistributedDataParallel is unusable after: " + failed_);
  session_.check_usable();
}

void DistributedDataParallel::broadcast_parameters(int root) {
  check_usable();
  at::NoGradGuard no_grad;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    // A buffer of its own: with bucket views, flat_ may be some parameter's .grad.
    auto payload = at::empty({bucket_numel_[b]}, flat_[b].options());
    std::int64_t offset = 0;
    for (std::size_t i : buckets_[b]) {
      payload.narrow(0, offset, params_[i].numel()).copy_(params_[i].detach().reshape(-1));
      offset += params_[i].numel();
    }
    session_.wait(compat::broadcast_async(session_.collectives(), payload, root),
                  "broadcast of the parameters from rank " + std::to_string(root));
    offset = 0;
    for (std::size_t i : buckets_[b]) {
      params_[i].detach().copy_(payload.narrow(0, offset, params_[i].numel()).view_as(params_[i]));
      offset += params_[i].numel();
    }
  }
}

DistributedDataParallel::NoSync::NoSync(DistributedDataParallel& d) : d_(d) {
  std::lock_guard<std::mutex> lock(d_.mu_);
  d_.sync_ = false;
}

DistributedDataParallel::NoSync::~NoSync() {
  std::lock_guard<std::mutex> lock(d_.mu_);
  d_.sync_ = true;
}

void DistributedDataParallel::mark_ready(std::size_t param) {
  std::lock_guard<std::mutex> lock(mu_);
  used_[param] = true;
  if (!sync_ || !failed_.empty() || session_.broken()) return;
  if (param_ready_[param]) {
    // Its bucket may already be on the wire with the first backward's gradient:
    // the sum would be lost. PyTorch raises here too.
    fail(
        "a second backward() reached a parameter before finish_gradients(): accumulate gradients inside no_sync() "
        "(all but the last micro-batch), or call finish_gradients() after each backward");
    throw std::runtime_error(failed_);
  }
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
  const bool scale = !avg_op_ && session_.world_size() > 1;
  for (std::size_t i : buckets_[b]) {
    auto& view = views_[i];
    auto& g = params_[i].mutable_grad();
    if (!used_[i] || !g.defined()) {
      view.zero_();  // unused here: contributes nothing
    } else if (g.data_ptr() == view.data_ptr() && g.strides() == view.strides()) {
      if (scale) view.mul_(inv_world_);  // backward accumulated into the bucket itself
    } else {
      // One pass: the copy into the bucket does the averaging too (as PyTorch's Reducer).
      if (scale) {
        at::mul_out(view, g, inv_world_);
      } else {
        view.copy_(g);
      }
      if (opts_.layout == GradLayout::bucket_view) g = view;  // frees the separate gradient
    }
  }
  if (b + 1 == buckets_.size()) {
    // One kernel in the usual case (every parameter used), one per unused one else.
    used_flags_.fill_(1);
    for (std::size_t i = 0; i < params_.size(); ++i)
      if (!used_[i]) used_flags_[static_cast<std::int64_t>(i)].fill_(0);
  }
  // Test hook (OPTBENCH_FAULT_INJECT=rank=*,mode=unreduced_bucket): the first
  // bucket is never all-reduced, so each rank keeps its own gradients there.
  if (b == 0 && distributed::fault_injected(session_.rank(), "unreduced_bucket")) return;
  try {
    work_[b] =
        compat::allreduce_async(session_.collectives(), flat_[b], avg_op_ ? c10d::ReduceOp::AVG : c10d::ReduceOp::SUM);
  } catch (const std::exception& e) {
    fail(e.what());
    throw;
  }
}

void DistributedDataParallel::finish_gradients() {
  distributed::fault_injection_point(session_.rank());
  check_usable();
  const auto t0 = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_finish_ = true;
    for (std::size_t i = 0; i < params_.size(); ++i) param_ready_[i] = true;
    for (std::size_t b = next_launch_; b < buckets_.size(); ++b) ready_count_[b] = buckets_[b].size();
    launch_ready_prefix();
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (!work_[b]) continue;  // never launched (the unreduced_bucket test hook)
    const std::string what =
        "all-reduce of gradient bucket " + std::to_string(b) + " of " + std::to_string(buckets_.size());
    if (session_.host_blocking()) {
      session_.wait(work_[b], what);  // throws (the group aborted) on a timeout, an error or Ctrl-C
      work_[b].reset();
    } else {
      compat::wait(work_[b], session_.timeout(), false);  // the stream waits; wait_completed() bounds it
    }
  }
  last_wait_s_ = std::chrono::duration<double>(Clock::now() - t0).count();

  // Which parameters did some rank use? Only worth a device-to-host read when
  // this rank left one unused (a parameter used here is used somewhere).
  bool all_used = true;
  for (bool u : used_) all_used = all_used && u;
  std::vector<bool> used_somewhere(params_.size(), true);
  if (!all_used) {
    const auto flags = used_flags_.to(at::kCPU, at::kFloat);
    for (std::size_t i = 0; i < params_.size(); ++i)
      used_somewhere[i] = flags[static_cast<std::int64_t>(i)].item<float>() > 0;
  }

  at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (!used_somewhere[i]) continue;  // untouched, as in PyTorch
    auto& g = params_[i].mutable_grad();
    if (opts_.layout == GradLayout::bucket_view) {
      g = views_[i];
    } else if (g.defined()) {
      g.copy_(views_[i]);
    } else {
      g = views_[i].clone();
    }
  }

  std::lock_guard<std::mutex> lock(mu_);
  std::fill(param_ready_.begin(), param_ready_.end(), false);
  std::fill(used_.begin(), used_.end(), false);
  std::fill(ready_count_.begin(), ready_count_.end(), 0);
  next_launch_ = 0;
  last_overlapped_ = overlapped_;
  overlapped_ = 0;
  in_finish_ = false;
  ++steps_;
}

void DistributedDataParallel::wait_completed() {
  for (std::size_t b = 0; b < work_.size(); ++b) {
    if (!work_[b]) continue;
    auto w = std::move(work_[b]);
    session_.wait(w, "all-reduce of gradient bucket " + std::to_string(b) + " of " + std::to_string(buckets_.size()));
  }
}

}  // namespace optbench::workloads::ddp
