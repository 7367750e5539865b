#pragma once
// The technique under test in `data_parallel`: a small DistributedDataParallel
// for the C++ frontend, built the way PyTorch's Reducer works (c10d::Reducer
// itself is internal to LibTorch and changes between releases):
//  - the ranks first check they hold the same parameters (count, shapes, dtypes,
//    bucket cap): a mismatch would all-reduce different sizes (hang or garbage);
//  - parameters are broadcast from rank 0 once, so every rank starts equal;
//  - gradients are grouped into buckets (~25 MB) in reverse registration order,
//    roughly the order backward produces them;
//  - a post hook on each parameter's gradient accumulator marks it ready; when a
//    bucket is complete (and every earlier bucket has been launched, so all ranks
//    launch in the same order) its gradients go into one flat buffer, scaled by
//    1/world on the way (or averaged by the reduction itself: NCCL's AVG), and
//    the buffer is all-reduced asynchronously, overlapping the rest of backward;
//  - finish_gradients() launches what is left and waits; with
//    GradLayout::copy the averages are copied back into .grad, with
//    GradLayout::bucket_view .grad *is* a view of the bucket (PyTorch's
//    gradient_as_bucket_view): no copy back, and the per-parameter gradient
//    tensors are freed;
//  - gradient accumulation goes through no_sync() as in PyTorch; a second
//    backward without it is refused (it would drop the first one's reduction);
//  - a parameter no rank used keeps its .grad untouched (as PyTorch's
//    find_unused_parameters); one used on some ranks gets the average with
//    zeros from the others.
// Ranks and process groups come from the harness (harness/distributed/session.h).
#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/compat/distributed.h"

namespace torch::autograd {
struct Node;
}

namespace optbench::distributed {
class Session;
}

namespace optbench::workloads::ddp {

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

// What a rank's parameters look like to the others: count, elements, and a
// hash of every dtype and shape in order, plus the bucket cap.
std::vector<std::int64_t> parameter_signature(const std::vector<at::Tensor>& params, std::int64_t bucket_cap_bytes);
// "" when every rank's signature is the same, else which ranks differ and how.
std::string signature_mismatch(const std::vector<std::vector<std::int64_t>>& per_rank);

enum class GradLayout {
  copy,         // .grad separate: copied into the bucket and back (PyTorch's default)
  bucket_view,  // .grad aliases its slice of the bucket (gradient_as_bucket_view=True)
};

struct DdpOptions {
  std::int64_t bucket_cap_bytes = 25 << 20;  // DDP's default bucket_cap_mb=25
  GradLayout layout = GradLayout::copy;
};

class DistributedDataParallel {
 public:
  // Collective: every rank of the session's group constructs it with its own
  // parameters; throws (on every rank) when they differ.
  DistributedDataParallel(std::vector<at::Tensor> params, distributed::Session& session, DdpOptions opts = {});
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  // Every rank's parameters become rank `root`'s (one broadcast per bucket).
  void broadcast_parameters(int root = 0);

  // While a NoSync lives, backward passes accumulate into .grad locally; the
  // next backward outside it all-reduces the sum (PyTorch's no_sync()).
  class NoSync {
   public:
    explicit NoSync(DistributedDataParallel& d);
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel& d_;
  };

  // After backward(): launches the buckets not yet launched and waits for them
  // (Gloo: on the host, bounded; NCCL: the current stream waits), then the
  // averages are in .grad.
  void finish_gradients();
  // NCCL: waits on the host, bounded by the session's timeout and Ctrl-C, until
  // the last step's all-reduces have finished; call it after the optimizer step
  // is enqueued so the GPU stays busy meanwhile. A hung peer then fails the
  // step (the group is aborted) instead of blocking the next device sync. Gloo:
  // finish_gradients already waited.
  void wait_completed();

  std::size_t num_buckets() const { return buckets_.size(); }
  std::int64_t gradient_bytes() const { return grad_bytes_; }
  const std::vector<std::vector<std::size_t>>& buckets() const { return buckets_; }
  GradLayout layout() const { return opts_.layout; }
  bool averages_in_reduction() const { return avg_op_; }
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
  void fail(const std::string& why);  // under mu_ or not: marks this and the group unusable
  void check_usable() const;

  std::vector<at::Tensor> params_;
  distributed::Session& session_;
  DdpOptions opts_;
  bool avg_op_ = false;   // the backend averages (NCCL); else scale while copying in
  at::Tensor inv_world_;  // 1/world as a 0-dim double (keeps the gradients' dtype)
  std::vector<std::vector<std::size_t>> buckets_;
  std::vector<std::size_t> bucket_of_;
  std::vector<at::Tensor> views_;  // per parameter: its slice of its bucket, shaped like it
  std::vector<std::int64_t> bucket_numel_;
  std::vector<at::Tensor> flat_;  // the last one ends with one "used" flag per parameter
  at::Tensor used_flags_;         // that tail
  std::vector<compat::WorkPtr> work_;
  std::vector<bool> param_ready_, used_;
  std::vector<std::size_t> ready_count_;
  std::size_t next_launch_ = 0;
  std::int64_t grad_bytes_ = 0;
  // The accumulators must stay alive for the hooks to stay registered.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::uintptr_t> hook_keys_;
  std::mutex mu_;
  bool in_finish_ = false, sync_ = true;
  std::string failed_;
  std::int64_t overlapped_ = 0, last_overlapped_ = 0, steps_ = 0;
  double last_wait_s_ = 0;
};

}  // namespace optbench::workloads::ddp
