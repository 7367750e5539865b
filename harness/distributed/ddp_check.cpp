#include "harness/distributed/ddp_check.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/distributed/ddp.h"
#include "harness/distributed/session.h"

namespace optbench::distributed {
namespace {

constexpr std::int64_t kIn = 12, kHidden = 24, kOut = 5, kBatch = 6;
constexpr double kLr = 0.1;

struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Registration order; the first is never used by forward, so the last bucket
// (which holds it) completes only in finish_gradients.
std::vector<at::Tensor> init_params(std::uint64_t seed, const c10::Device& device) {
  auto gen = at::detail::createCPUGenerator(seed);
  const std::vector<std::vector<std::int64_t>> shapes = {
      {7}, {kIn, kHidden}, {kHidden}, {kHidden, kHidden}, {kHidden}, {kHidden, kOut}, {kOut}};
  std::vector<at::Tensor> ps;
  for (const auto& s : shapes)
    ps.push_back((at::randn(s, gen, at::TensorOptions().dtype(at::kFloat)) * 0.3).to(device).requires_grad_(true));
  return ps;
}

at::Tensor loss_of(const std::vector<at::Tensor>& p, const at::Tensor& x, const at::Tensor& y) {
  auto h = at::tanh(x.mm(p[1]) + p[2]);
  h = at::tanh(h.mm(p[3]) + p[4]);
  const auto logits = h.mm(p[5]) + p[6];
  return at::nll_loss(at::log_softmax(logits, 1), y);
}

std::pair<at::Tensor, at::Tensor> batch(int rank, int step, const c10::Device& device) {
  auto gen = at::detail::createCPUGenerator(1000 + 97 * static_cast<std::uint64_t>(step) + rank);
  auto x = at::randn({kBatch, kIn}, gen, at::TensorOptions().dtype(at::kFloat));
  auto y = at::randint(0, kOut, {kBatch}, gen, at::TensorOptions().dtype(at::kLong));
  return {x.to(device), y.to(device)};
}

at::Tensor grad_or_zeros(const at::Tensor& p) {
  return p.grad().defined() ? p.grad().detach() : at::zeros_like(p).detach();
}

at::Tensor flat(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> parts;
  for (const auto& t : ts) parts.push_back(t.detach().reshape(-1));
  return at::cat(parts);
}

double normalised_error(const at::Tensor& got, const at::Tensor& ref) {
  const auto r = ref.to(at::kDouble);
  const double scale = std::max(r.abs().max().item<double>(), 1e-30);
  return (got.to(at::kDouble) - r).abs().max().item<double>() / scale;
}

// True when `t` holds the same values, bit for bit, on every rank.
bool identical_across_ranks(Session& s, const at::Tensor& t) {
  auto hi = t.detach().clone(), lo = t.detach().clone();
  compat::wait(compat::allreduce_async(s.collectives(), hi, c10d::ReduceOp::MAX), s.timeout(), true);
  compat::wait(compat::allreduce_async(s.collectives(), lo, c10d::ReduceOp::MIN), s.timeout(), true);
  return at::equal(hi, t) && at::equal(lo, t);
}

void sgd(std::vector<at::Tensor>& ps) {
  at::NoGradGuard g;
  for (auto& p : ps) {
    if (p.grad().defined()) p.sub_(p.grad(), kLr);
    p.mutable_grad() = at::Tensor();
  }
}

}  // namespace

int run_ddp_check(const CheckOptions& opts) {
  std::shared_ptr<Session> session;
  try {
    auto info = rendezvous_from_environment();
    session = info ? Session::join(*info, opts.device) : Session::local(opts.device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddp check: error: %s\n", e.what());
    return 1;
  }
  Session& s = *session;
  const int rank = s.rank(), world = s.world_size();
  const c10::Device dev = s.device();
  try {
    auto params = init_params(7 + static_cast<std::uint64_t>(rank), dev);  // differs per rank on purpose
    auto ref = init_params(7, dev);                                        // rank 0's: one process
    DistributedDataParallel ddp(params, s, DdpOptions{opts.bucket_bytes, false});
    ddp.broadcast_parameters(0);
    if (!identical_across_ranks(s, flat(params))) throw CheckFailed("parameters differ across ranks after broadcast");
    if (!at::equal(flat(params), flat(ref))) throw CheckFailed("parameters after broadcast are not rank 0's");

    double worst_grad = 0, worst_param = 0;
    std::int64_t overlapped = 0;
    for (int step = 0; step < opts.steps; ++step) {
      auto [x, y] = batch(rank, step, dev);
      loss_of(params, x, y).backward();
      ddp.finish_gradients();
      overlapped = std::max(overlapped, ddp.last_overlapped_buckets());
      std::vector<at::Tensor> grads;
      for (const auto& p : params) grads.push_back(grad_or_zeros(p));
      if (!identical_across_ranks(s, flat(grads)))
        throw CheckFailed("averaged gradients differ across ranks at step " + std::to_string(step));

      std::vector<at::Tensor> xs, ys;
      for (int r = 0; r < world; ++r) {
        auto [xr, yr] = batch(r, step, dev);
        xs.push_back(xr);
        ys.push_back(yr);
      }
      // Mean loss over the concatenated batch = mean over ranks of each rank's mean loss.
      loss_of(ref, at::cat(xs), at::cat(ys)).backward();
      std::vector<at::Tensor> ref_grads;
      for (const auto& p : ref) ref_grads.push_back(grad_or_zeros(p));
      const double eg = normalised_error(flat(grads), flat(ref_grads));
      worst_grad = std::max(worst_grad, eg);
      if (!(eg <= opts.tolerance))
        throw CheckFailed("gradients differ from single-process training on the concatenated batch at step " +
                          std::to_string(step) + ": normalised error " + std::to_string(eg));

      sgd(params);
      sgd(ref);
      if (!identical_across_ranks(s, flat(params)))
        throw CheckFailed("parameters differ across ranks after step " + std::to_string(step));
      const double ep = normalised_error(flat(params), flat(ref));
      worst_param = std::max(worst_param, ep);
      if (!(ep <= opts.tolerance))
        throw CheckFailed("parameters differ from single-process training after step " + std::to_string(step) +
                          ": normalised error " + std::to_string(ep));
    }
    if (ddp.num_buckets() > 1 && overlapped == 0)
      throw CheckFailed("no bucket was launched during backward (the hooks did not fire)");
    std::ostringstream os;
    os.precision(3);
    os << "ddp check ok: rank " << rank << " of " << world << ", " << s.backend() << " on " << dev.str() << ", "
       << ddp.num_buckets() << " buckets (" << overlapped << " launched during backward), " << opts.steps
       << " steps, max gradient error " << worst_grad << ", max parameter error " << worst_param;
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

}  // namespace optbench::distributed
