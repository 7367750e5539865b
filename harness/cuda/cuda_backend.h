#pragma once
// CUDA implementation of DeviceBackend (built only with a CUDA LibTorch).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/device.h"

namespace optbench::cuda {

int device_count();  // 0 when no driver or no device, never throws
std::string pci_bus_id(int device);
std::string device_name(int device);
std::unique_ptr<DeviceBackend> make_cuda_backend();
nlohmann::json environment();  // GPU properties, runtime/driver/cuDNN/NCCL versions

}  // namespace optbench::cuda
