#pragma once
// A small DistributedDataParallel for the C++ frontend, built the way PyTorch's
// Reducer works (c10d::Reducer itself does not compile against Debian's 1.13
// headers and is internal in 2.x):
//  - parameters are broadcast from rank 0 once, so every rank starts equal;
//  - gradients are grouped into buckets (~25 MB) in reverse registration order,
//    roughly the order backward produces them;
//  - a post hook on each parameter's gradient accumulator marks it ready; when a
//    bucket is complete (and every earlier bucket has been launched, so all ranks
//    launch in the same order) its gradients are copied into one flat buffer and
//    all-reduced asynchronously, overlapping the rest of backward;
//  - finish_gradients() launches what is left (parameters without a gradient
//    contribute zeros), waits, averages and writes the result back into .grad,
//    before the optimizer step.
#include <ATen/ATen.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "harness/compat/distributed.h"

namespace torch::autograd {
struct Node;
}

namespace optbench::distributed {

class Session;

// One parameter as bucketing sees it: its size and a key for what must not share
// a bucket (dtype and device).
struct BucketParam {
  std::int64_t bytes = 0;
  int key = 0;
};

// Indices of params per bucket, buckets in launch order. Walks the parameters
// from last to first; a bucket closes when the next parameter would take it past
// cap_bytes or has another key. A parameter larger than the cap gets a bucket of
// its own. cap_bytes <= 0: one bucket per key run.
std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<BucketParam>& params, std::int64_t cap_bytes);

// nccl-tests' figures for an all-reduce of `bytes` in `seconds` over `ranks`:
// algbw = bytes / time; busbw = algbw * 2(n-1)/n (what each link carries in a
// ring, comparable with the hardware's bandwidth). busbw is 0 for one rank.
double allreduce_algbw(double bytes, double seconds);
double allreduce_busbw(double bytes, double seconds, int ranks);

struct DdpOptions {
  std::int64_t bucket_cap_bytes = 25 << 20;  // DDP's default bucket_cap_mb=25
  // One extra float in the last bucket, all-reduced with the gradients: lets rank
  // 0 tell the others something every step at no extra cost (used to say whether
  // another step follows).
  bool control_slot = false;
};

class DistributedDataParallel {
 public:
  DistributedDataParallel(std::vector<at::Tensor> params, Session& session, DdpOptions opts = {});
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  // Every rank's parameters become rank `root`'s (flattened per bucket, one
  // broadcast per bucket, under NoGradGuard).
  void broadcast_parameters(int root = 0);
  // The value this rank adds into the control slot for the next step.
  void set_control(float v) { control_value_ = v; }
  // After backward(): launches the buckets not yet launched, waits for all,
  // averages over the ranks and writes the gradients back.
  void finish_gradients();
  // The control slot summed over ranks in the last finished step (a host sync on CUDA).
  float control_result();

  std::size_t num_buckets() const { return buckets_.size(); }
  std::int64_t gradient_bytes() const { return grad_bytes_; }
  const std::vector<std::vector<std::size_t>>& buckets() const { return buckets_; }
  // Of the last step: buckets launched from the hooks during backward (the
  // overlapped ones), and host time finish_gradients spent waiting for them.
  std::int64_t last_overlapped_buckets() const { return last_overlapped_; }
  double last_wait_s() const { return last_wait_s_; }
  std::int64_t steps() const { return steps_; }

 private:
  struct Hook;
  void mark_ready(std::size_t param);
  void launch_ready_prefix();  // under mu_
  void launch(std::size_t bucket);

  std::vector<at::Tensor> params_;
  Session& session_;
  DdpOptions opts_;
  std::vector<std::vector<std::size_t>> buckets_;
  std::vector<std::size_t> bucket_of_, offset_in_bucket_;
  std::vector<std::int64_t> bucket_numel_;
  std::vector<at::Tensor> flat_;
  std::vector<compat::WorkPtr> work_;
  std::vector<bool> param_ready_;
  std::vector<std::size_t> ready_count_;
  std::size_t next_launch_ = 0;
  std::int64_t grad_bytes_ = 0;
  float control_value_ = 0;
  // The accumulators must stay alive for the hooks to stay registered.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::uintptr_t> hook_keys_;
  std::mutex mu_;
  bool in_finish_ = false;
  std::int64_t overlapped_ = 0, last_overlapped_ = 0, steps_ = 0;
  double last_wait_s_ = 0;
};

}  // namespace optbench::distributed
