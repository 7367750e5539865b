#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "harness/cuda/cuda_backend.h"
#include "harness/nvml.h"

namespace optbench::cuda {
namespace {

std::string version_string(int v) {  // CUDA encodes 12040 as 12.4
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// NCCL's version from whichever libnccl the process can load (LibTorch's own,
// when linked, is found first), without linking NCCL into the binary.
nlohmann::json nccl_version() {
  using Fn = int (*)(int*);
  Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "ncclGetVersion"));
  void* lib = nullptr;
  if (!fn && (lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL)))
    fn = reinterpret_cast<Fn>(dlsym(lib, "ncclGetVersion"));
  int v = 0;
  if (!fn || fn(&v) != 0) return nullptr;
  // Since NCCL 2.9 the code is major*10000 + minor*100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

}  // namespace

nlohmann::json environment() {
  nlohmann::json j;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  j["cuda_runtime"] = version_string(runtime);
  j["cuda_driver_api"] = version_string(driver);
  const auto& hooks = at::detail::getCUDAHooks();
  j["cudnn"] = hooks.hasCuDNN() ? nlohmann::json(hooks.versionCuDNN()) : nlohmann::json(nullptr);
  j["nccl"] = nccl_version();
  j["device_count"] = device_count();
  nlohmann::json gpus = nlohmann::json::array();
  for (int d = 0; d < device_count(); ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    int clock_khz = 0, mem_clock_khz = 0, bus_width = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, d);
    cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, d);
    nlohmann::json g;
    g["index"] = d;
    g["name"] = p.name;
    g["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
    g["sm_count"] = p.multiProcessorCount;
    g["memory_bytes"] = p.totalGlobalMem;
    g["l2_cache_bytes"] = p.l2CacheSize;
    g["clock_rate_mhz"] = clock_khz / 1000.0;
    g["memory_clock_mhz"] = mem_clock_khz / 1000.0;
    g["memory_bus_width_bits"] = bus_width;
    g["pci_bus_id"] = pci_bus_id(d);
    g["nvml"] = nvml::device_environment(pci_bus_id(d));
    gpus.push_back(std::move(g));
  }
  j["gpus"] = std::move(gpus);
  return j;
}

}  // namespace optbench::cuda
