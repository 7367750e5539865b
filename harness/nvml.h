#pragma once
// NVML, loaded at run time with dlopen: clocks, throttle reasons, PCIe link and
// driver version where the driver is installed, and a clear "unavailable" where
// not. No NVML header or library is needed to build (the CPU build, CI).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace optbench::nvml {

bool available();
std::string unavailable_reason();
std::string driver_version();

// pci_bus_id as cudaDeviceGetPCIBusId writes it; empty -> NVML index 0.
nlohmann::json device_environment(const std::string& pci_bus_id);

// Cheap read for per-sample clock logging (nvbench's gpu_frequency).
std::optional<double> sm_clock_mhz(const std::string& pci_bus_id);
std::optional<double> sm_clock_max_mhz(const std::string& pci_bus_id);
// The current clocks-event (throttle) reason mask, for per-sample logging.
std::optional<std::uint64_t> clock_reasons(const std::string& pci_bus_id);

// What nvidia-smi shows as GPU-Util and Memory-Util: the share of the last
// sample period (1/6 s to 1 s, by product) in which a kernel ran / device
// memory was read or written.
struct Utilization {
  double gpu_pct = 0, memory_pct = 0;
};
std::optional<Utilization> utilization(const std::string& pci_bus_id);
// Board power draw, as nvidia-smi's Pwr:Usage.
std::optional<double> power_w(const std::string& pci_bus_id);

// Names of the bits set in a clocks-event (throttle) reason mask.
nlohmann::json throttle_reason_names(std::uint64_t mask);

}  // namespace optbench::nvml
