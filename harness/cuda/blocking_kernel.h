#pragma once
// nvbench's blocking kernel (nvbench/blocking_kernel.cu): a kernel that holds the
// stream until the host has queued the whole batch, so the time between the two
// events is the GPU's execution alone, not the host's enqueue rate. It gives up
// after a timeout so a step that synchronises cannot deadlock the run.
#include <cuda_runtime_api.h>

namespace optbench::cuda {

class BlockingKernel {
 public:
  BlockingKernel();
  ~BlockingKernel();
  BlockingKernel(const BlockingKernel&) = delete;
  BlockingKernel& operator=(const BlockingKernel&) = delete;

  void block(cudaStream_t stream, double timeout_s);
  void release();
  bool timed_out() const;  // valid after the stream has passed the kernel

 private:
  volatile int* flags_ = nullptr;  // [0] release, [1] timed out; mapped pinned memory
};

}  // namespace optbench::cuda
