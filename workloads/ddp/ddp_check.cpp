// `optbench ddp-check`: the DDP implementation checked across whatever group the
// environment describes (a group of one without a launcher). For each gradient
// layout (copy, bucket views): every rank starts from different weights and
// after the broadcast holds rank 0's. Each step every rank trains on its own
// batch; the averaged gradients must be bit-identical on every rank and equal
// (1e-5, normalised) to one process averaging the ranks' losses, and so must the
// weights after SGD. One parameter is never used (its .grad must stay unset),
// one only on rank 0 (it gets rank 0's gradient / N), and small buckets force
// several all-reduces, some launched while backward still runs. Then: two
// micro-batches accumulated with no_sync() must equal one process on both, and a
// second backward without it must be refused on every rank.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/distributed/self_check.h"
#include "harness/distributed/session.h"
#include "workloads/common.h"
#include "workloads/ddp/bucketed_ddp.h"

namespace optbench::workloads::ddp {
namespace {

namespace dist = optbench::distributed;

constexpr std::int64_t kIn = 12, kHidden = 24, kOut = 5, kBatch = 6;
constexpr double kLr = 0.1;

struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Registration order (buckets go from the last): [0] is never used (the last
// bucket, which holds it, completes only in finish_gradients); [1] only by rank 0.
std::vector<at::Tensor> init_params(std::uint64_t seed, const c10::Device& device) {
  auto gen = at::detail::createCPUGenerator(seed);
  const std::vector<std::vector<std::int64_t>> shapes = {
      {7}, {kOut}, {kIn, kHidden}, {kHidden}, {kHidden, kHidden}, {kHidden}, {kHidden, kOut}, {kOut}};
  std::vector<at::Tensor> ps;
  for (const auto& s : shapes)
    ps.push_back((at::randn(s, gen, at::TensorOptions().dtype(at::kFloat)) * 0.3).to(device).requires_grad_(true));
  return ps;
}

at::Tensor loss_of(const std::vector<at::Tensor>& p, const at::Tensor& x, const at::Tensor& y, int rank) {
  auto h = at::tanh(x.mm(p[2]) + p[3]);
  h = at::tanh(h.mm(p[4]) + p[5]);
  auto logits = h.mm(p[6]) + p[7];
  if (rank == 0) logits = logits + p[1];
  return at::nll_loss(at::log_softmax(logits, 1), y);
}

std::pair<at::Tensor, at::Tensor> batch(int rank, int step, const c10::Device& device) {
  auto gen = at::detail::createCPUGenerator(1000 + 97 * static_cast<std::uint64_t>(step) + rank);
  auto x = at::randn({kBatch, kIn}, gen, at::TensorOptions().dtype(at::kFloat));
  auto y = at::randint(0, kOut, {kBatch}, gen, at::TensorOptions().dtype(at::kLong));
  return {x.to(device), y.to(device)};
}

// One process: the mean over ranks of each rank's loss on its batch of `step`.
void reference_backward(const std::vector<at::Tensor>& ref, int world, int step, const c10::Device& dev) {
  at::Tensor total;
  for (int r = 0; r < world; ++r) {
    auto [x, y] = batch(r, step, dev);
    auto l = loss_of(ref, x, y, r);
    total = total.defined() ? total + l : l;
  }
  (total / world).backward();
}

at::Tensor grad_or_zeros(const at::Tensor& p) {
  return p.grad().defined() ? p.grad().detach() : at::zeros_like(p).detach();
}

at::Tensor flat(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> parts;
  for (const auto& t : ts) parts.push_back(t.detach().reshape(-1));
  return at::cat(parts);
}

std::vector<at::Tensor> grads(const std::vector<at::Tensor>& ps) {
  std::vector<at::Tensor> g;
  for (const auto& p : ps) g.push_back(grad_or_zeros(p));
  return g;
}

// True when `t` holds the same values, bit for bit, on every rank.
bool identical_across_ranks(dist::Session& s, const at::Tensor& t) {
  auto hi = t.detach().clone(), lo = t.detach().clone();
  s.wait(compat::allreduce_async(s.collectives(), hi, c10d::ReduceOp::MAX), "check all-reduce (max)");
  s.wait(compat::allreduce_async(s.collectives(), lo, c10d::ReduceOp::MIN), "check all-reduce (min)");
  return at::equal(hi, t) && at::equal(lo, t);
}

void sgd(std::vector<at::Tensor>& ps) {
  at::NoGradGuard g;
  for (auto& p : ps) {
    if (p.grad().defined()) p.sub_(p.grad(), kLr);
    p.mutable_grad() = at::Tensor();
  }
}

const char* name_of(GradLayout l) { return l == GradLayout::copy ? "copy" : "bucket_view"; }

struct Worst {
  double grad = 0, param = 0;
  std::int64_t overlapped = 0;
  std::size_t buckets = 0;
};

void check_layout(dist::Session& s, const dist::SelfCheckOptions& opts, GradLayout layout, Worst& worst) {
  const int rank = s.rank(), world = s.world_size();
  const c10::Device dev = s.device();
  const std::string where = std::string(name_of(layout)) + ": ";
  auto params = init_params(7 + static_cast<std::uint64_t>(rank), dev);  // differs per rank on purpose
  auto ref = init_params(7, dev);                                        // rank 0's: one process
  DistributedDataParallel ddp(params, s, DdpOptions{opts.bucket_bytes, layout});
  worst.buckets = ddp.num_buckets();
  ddp.broadcast_parameters(0);
  if (!identical_across_ranks(s, flat(params)))
    throw CheckFailed(where + "parameters differ across ranks after broadcast");
  if (!at::equal(flat(params), flat(ref))) throw CheckFailed(where + "parameters after broadcast are not rank 0's");

  for (int step = 0; step < opts.steps; ++step) {
    auto [x, y] = batch(rank, step, dev);
    loss_of(params, x, y, rank).backward();
    ddp.finish_gradients();
    ddp.wait_completed();
    worst.overlapped = std::max(worst.overlapped, ddp.last_overlapped_buckets());
    if (params[0].grad().defined()) throw CheckFailed(where + "a parameter no rank used got a gradient");
    if (!identical_across_ranks(s, flat(grads(params))))
      throw CheckFailed(where + "averaged gradients differ across ranks at step " + std::to_string(step));
    reference_backward(ref, world, step, dev);
    const double eg = normalised_error(flat(grads(params)), flat(grads(ref)));
    worst.grad = std::max(worst.grad, eg);
    if (!(eg <= opts.tolerance))
      throw CheckFailed(where + "gradients differ from one process at step " + std::to_string(step) +
                        ": normalised error " + std::to_string(eg));
    sgd(params);
    sgd(ref);
    if (!identical_across_ranks(s, flat(params)))
      throw CheckFailed(where + "parameters differ across ranks after step " + std::to_string(step));
    const double ep = normalised_error(flat(params), flat(ref));
    worst.param = std::max(worst.param, ep);
    if (!(ep <= opts.tolerance))
      throw CheckFailed(where + "parameters differ from one process after step " + std::to_string(step) +
                        ": normalised error " + std::to_string(ep));
  }

  // Accumulation: micro-batches `steps` and `steps + 1`, the first inside no_sync().
  const int m0 = opts.steps, m1 = opts.steps + 1;
  {
    DistributedDataParallel::NoSync quiet(ddp);
    auto [x, y] = batch(rank, m0, dev);
    loss_of(params, x, y, rank).backward();
  }
  auto [x1, y1] = batch(rank, m1, dev);
  loss_of(params, x1, y1, rank).backward();
  ddp.finish_gradients();
  ddp.wait_completed();
  reference_backward(ref, world, m0, dev);
  reference_backward(ref, world, m1, dev);
  const double ea = normalised_error(flat(grads(params)), flat(grads(ref)));
  worst.grad = std::max(worst.grad, ea);
  if (!(ea <= opts.tolerance))
    throw CheckFailed(where + "gradients accumulated with no_sync() differ from one process: normalised error " +
                      std::to_string(ea));
  sgd(params);
  sgd(ref);
}

// Last: a refused second backward leaves the group unusable.
void check_second_backward_refused(dist::Session& s, const dist::SelfCheckOptions& opts) {
  auto params = init_params(7, s.device());
  DistributedDataParallel ddp(params, s, DdpOptions{opts.bucket_bytes, GradLayout::copy});
  auto [x, y] = batch(s.rank(), 0, s.device());
  loss_of(params, x, y, s.rank()).backward();
  try {
    loss_of(params, x, y, s.rank()).backward();
  } catch (const std::exception& e) {
    if (std::string(e.what()).find("no_sync()") != std::string::npos) return;
    throw CheckFailed(std::string("a second backward failed with an unexpected error: ") + e.what());
  }
  throw CheckFailed("a second backward without no_sync() was accepted (the first one's reduction would be lost)");
}

int run_check(const dist::SelfCheckOptions& opts) {
  std::shared_ptr<dist::Session> session;
  try {
    auto info = dist::rendezvous_from_environment();
    session = info ? dist::Session::join(*info, opts.device) : dist::Session::local(opts.device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddp check: error: %s\n", e.what());
    return 1;
  }
  dist::Session& s = *session;
  const int rank = s.rank(), world = s.world_size();
  try {
    Worst worst;
    for (GradLayout layout : {GradLayout::copy, GradLayout::bucket_view}) check_layout(s, opts, layout, worst);
    if (worst.buckets > 1 && worst.overlapped == 0)
      throw CheckFailed("no bucket was launched during backward (the hooks did not fire)");
    check_second_backward_refused(s, opts);
    std::ostringstream os;
    os.precision(3);
    os << "ddp check ok: rank " << rank << " of " << world << ", " << s.backend() << " on " << s.device().str() << ", "
       << worst.buckets << " buckets (" << worst.overlapped << " launched during backward), " << opts.steps
       << " steps + 2 accumulated micro-batches per layout (copy, bucket_view), max gradient error " << worst.grad
       << ", max parameter error " << worst.param << ", second backward refused";
    std::printf("%s\n", os.str().c_str());
    std::fflush(stdout);
    return 0;
  } catch (const CheckFailed& e) {
    std::fprintf(stderr, "ddp check FAILED: rank %d of %d: %s\n", rank, world, e.what());
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
    std::fprintf(stderr, "ddp check: rank %d of %d: error: %s\n", rank, world, msg.c_str());
  }
  return 1;
}

const bool registered = [] {
  dist::register_ddp_check(&run_check);
  return true;
}();

}  // namespace
}  // namespace optbench::workloads::ddp
