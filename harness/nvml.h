#pragma once
// NVML, loaded at run time with dlopen: clocks, throttle reasons, PCIe link and
// driver version where the driver is installed, and a clear "unavailable" where
// not. No NVML header or library is needed to build (the CPU build, CI).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

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

// Names of the bits set in a clocks-event (throttle) reason mask.
nlohmann::json throttle_reason_names(std::uint64_t mask);

}  // namespace optbench::nvml
