// A CPU allocation failure is an out-of-memory ("oom"), as a CUDA one is: the
// batch-size sweep finds the memory limit on a CPU this way (ulimit -v).
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include "harness/device.h"

using namespace optbench;

// The message LibTorch 2.11's DefaultCPUAllocator throws (alloc_cpu.cpp), as
// pip's torch 2.11.0 printed it for torch.empty(2**50) on this machine.
constexpr const char* kCpuOomMessage =
    "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
    "allocate 4503599627370496 bytes. Error code 12 (Cannot allocate memory)";

TEST(OomClassifier, TheCpuAllocatorsMessageIsAnOom) {
  const c10::Error e{std::string(kCpuOomMessage)};
  EXPECT_TRUE(is_out_of_memory(e));
}

TEST(OomClassifier, ARealCpuAllocationFailureIsAnOom) {
  // 2^50 floats (4 PiB): refused by the allocator on any machine.
  try {
    auto t = at::empty({std::int64_t{1} << 50}, at::kFloat);
    FAIL() << "allocated 4 PiB";
  } catch (const std::exception& e) {
    EXPECT_TRUE(is_out_of_memory(e)) << e.what();
  }
}

TEST(OomClassifier, OtherErrorsAreNot) {
  EXPECT_FALSE(is_out_of_memory(std::runtime_error("shape mismatch")));
  EXPECT_FALSE(is_out_of_memory(c10::Error(std::string("Expected all tensors to be on the same device"))));
}
