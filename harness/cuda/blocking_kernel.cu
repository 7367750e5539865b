#include <atomic>
#include <stdexcept>
#include <string>

#include "harness/cuda/blocking_kernel.h"

namespace optbench::cuda {
namespace {

__device__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_stream(volatile int* flags, unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (flags[0] == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
    __nanosleep(1000);
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

BlockingKernel::BlockingKernel() {
  void* p = nullptr;
  check(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
  flags_ = static_cast<volatile int*>(p);
  flags_[0] = flags_[1] = 0;
}

BlockingKernel::~BlockingKernel() { cudaFreeHost(const_cast<int*>(flags_)); }

void BlockingKernel::block(cudaStream_t stream, double timeout_s) {
  flags_[0] = 0;
  flags_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  void* dev = nullptr;
  check(cudaHostGetDevicePointer(&dev, const_cast<int*>(flags_), 0), "cudaHostGetDevicePointer");
  hold_stream<<<1, 1, 0, stream>>>(static_cast<volatile int*>(dev), static_cast<unsigned long long>(timeout_s * 1e9));
  check(cudaGetLastError(), "launching the blocking kernel");
}

void BlockingKernel::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool BlockingKernel::timed_out() const { return flags_[1] != 0; }

}  // namespace optbench::cuda
