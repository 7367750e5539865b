#include "harness/nvml.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>
#include <vector>

namespace optbench::nvml {
namespace {

// The few NVML entry points used, declared from the stable C ABI (nvml.h):
// nvmlReturn_t is an int enum with 0 = success, nvmlDevice_t an opaque pointer.
using Device = void*;
using InitFn = int (*)();
using DriverVersionFn = int (*)(char*, unsigned);
using HandleByIndexFn = int (*)(unsigned, Device*);
using CountFn = int (*)(unsigned*);
using HandleByPciFn = int (*)(const char*, Device*);
using NameFn = int (*)(Device, char*, unsigned);
using ClockFn = int (*)(Device, int, unsigned*);
using UIntFn = int (*)(Device, unsigned*);
using TempFn = int (*)(Device, int, unsigned*);
using ReasonsFn = int (*)(Device, unsigned long long*);
struct NvmlUtilization {  // nvmlUtilization_t
  unsigned gpu, memory;
};
using UtilizationFn = int (*)(Device, NvmlUtilization*);

constexpr int kClockGraphics = 0, kClockSm = 1, kClockMem = 2;
constexpr int kTemperatureGpu = 0;

struct Api {
  void* lib = nullptr;
  std::string error;
  DriverVersionFn driver_version = nullptr;
  HandleByIndexFn handle_by_index = nullptr;
  CountFn count = nullptr;
  HandleByPciFn handle_by_pci = nullptr;
  NameFn name = nullptr;
  ClockFn clock = nullptr, max_clock = nullptr;
  UIntFn pcie_gen = nullptr, pcie_width = nullptr, pcie_gen_max = nullptr, pcie_width_max = nullptr;
  UIntFn power_limit = nullptr;
  TempFn temperature = nullptr;
  ReasonsFn reasons = nullptr;
  UtilizationFn utilization = nullptr;
  UIntFn power_usage = nullptr;
};

template <class F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

Api& api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    a.lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!a.lib) {
      a.error = "libnvidia-ml.so.1 not found (no NVIDIA driver on this machine)";
      return;
    }
    auto init = sym<InitFn>(a.lib, "nvmlInit_v2");
    if (!init || init() != 0) {
      a.error = "nvmlInit_v2 failed";
      a.lib = nullptr;
      return;
    }
    a.driver_version = sym<DriverVersionFn>(a.lib, "nvmlSystemGetDriverVersion");
    a.handle_by_index = sym<HandleByIndexFn>(a.lib, "nvmlDeviceGetHandleByIndex_v2");
    a.count = sym<CountFn>(a.lib, "nvmlDeviceGetCount_v2");
    a.handle_by_pci = sym<HandleByPciFn>(a.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    a.name = sym<NameFn>(a.lib, "nvmlDeviceGetName");
    a.clock = sym<ClockFn>(a.lib, "nvmlDeviceGetClockInfo");
    a.max_clock = sym<ClockFn>(a.lib, "nvmlDeviceGetMaxClockInfo");
    a.pcie_gen = sym<UIntFn>(a.lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    a.pcie_width = sym<UIntFn>(a.lib, "nvmlDeviceGetCurrPcieLinkWidth");
    a.pcie_gen_max = sym<UIntFn>(a.lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    a.pcie_width_max = sym<UIntFn>(a.lib, "nvmlDeviceGetMaxPcieLinkWidth");
    a.power_limit = sym<UIntFn>(a.lib, "nvmlDeviceGetPowerManagementLimit");
    a.temperature = sym<TempFn>(a.lib, "nvmlDeviceGetTemperature");
    // Renamed "clocks event reasons" in CUDA 12.2; drivers export both names.
    a.reasons = sym<ReasonsFn>(a.lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!a.reasons) a.reasons = sym<ReasonsFn>(a.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    a.utilization = sym<UtilizationFn>(a.lib, "nvmlDeviceGetUtilizationRates");
    a.power_usage = sym<UIntFn>(a.lib, "nvmlDeviceGetPowerUsage");
  });
  return a;
}

std::optional<Device> handle(const std::string& pci_bus_id) {
  Api& a = api();
  if (!a.lib) return std::nullopt;
  Device d = nullptr;
  if (!pci_bus_id.empty() && a.handle_by_pci && a.handle_by_pci(pci_bus_id.c_str(), &d) == 0) return d;
  // Without the bus id, index 0 is ours only where NVML sees one GPU: NVML counts
  // every GPU, CUDA only the visible ones, in an order that may differ.
  unsigned n = 0;
  if (a.count && a.count(&n) == 0 && n == 1 && a.handle_by_index && a.handle_by_index(0, &d) == 0) return d;
  return std::nullopt;
}

template <class F, class... Args>
nlohmann::json read_uint(F fn, Args... args) {
  unsigned v = 0;
  if (fn && fn(args..., &v) == 0) return v;
  return nullptr;
}

}  // namespace

bool available() { return api().lib != nullptr; }
std::string unavailable_reason() { return api().error; }

std::string driver_version() {
  Api& a = api();
  char buf[96] = {0};
  if (a.lib && a.driver_version && a.driver_version(buf, sizeof buf) == 0) return buf;
  return "";
}

nlohmann::json throttle_reason_names(std::uint64_t mask) {
  static const std::vector<std::pair<std::uint64_t, const char*>> kNames = {{0x1, "gpu_idle"},
                                                                            {0x2, "applications_clocks_setting"},
                                                                            {0x4, "sw_power_cap"},
                                                                            {0x8, "hw_slowdown"},
                                                                            {0x10, "sync_boost"},
                                                                            {0x20, "sw_thermal_slowdown"},
                                                                            {0x40, "hw_thermal_slowdown"},
                                                                            {0x80, "hw_power_brake_slowdown"},
                                                                            {0x100, "display_clock_setting"}};
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [bit, name] : kNames)
    if (mask & bit) names.push_back(name);
  return names;
}

nlohmann::json device_environment(const std::string& pci_bus_id) {
  nlohmann::json j;
  j["available"] = available();
  if (!available()) {
    j["reason"] = unavailable_reason();
    return j;
  }
  auto h = handle(pci_bus_id);
  if (!h) {
    j["available"] = false;
    j["reason"] = "no NVML handle for PCI bus id '" + pci_bus_id + "'";
    return j;
  }
  Api& a = api();
  Device d = *h;
  char name[128] = {0};
  if (a.name && a.name(d, name, sizeof name) == 0) j["name"] = name;
  j["driver_version"] = driver_version();
  j["sm_clock_mhz"] = read_uint(a.clock, d, kClockSm);
  j["sm_clock_max_mhz"] = read_uint(a.max_clock, d, kClockSm);
  j["graphics_clock_max_mhz"] = read_uint(a.max_clock, d, kClockGraphics);
  j["memory_clock_mhz"] = read_uint(a.clock, d, kClockMem);
  j["memory_clock_max_mhz"] = read_uint(a.max_clock, d, kClockMem);
  j["pcie_link"] = {{"generation", read_uint(a.pcie_gen, d)},
                    {"width", read_uint(a.pcie_width, d)},
                    {"max_generation", read_uint(a.pcie_gen_max, d)},
                    {"max_width", read_uint(a.pcie_width_max, d)}};
  unsigned mw = 0;
  j["power_limit_w"] = (a.power_limit && a.power_limit(d, &mw) == 0) ? nlohmann::json(mw / 1000.0) : nullptr;
  j["temperature_c"] = read_uint(a.temperature, d, kTemperatureGpu);
  unsigned long long mask = 0;
  if (a.reasons && a.reasons(d, &mask) == 0) {
    j["throttle_reasons_mask"] = mask;
    j["throttle_reasons"] = throttle_reason_names(mask);
  } else {
    j["throttle_reasons"] = nullptr;
  }
  return j;
}

std::optional<double> sm_clock_mhz(const std::string& pci_bus_id) {
  auto h = handle(pci_bus_id);
  unsigned v = 0;
  if (h && api().clock && api().clock(*h, kClockSm, &v) == 0) return v;
  return std::nullopt;
}

std::optional<Utilization> utilization(const std::string& pci_bus_id) {
  const auto d = handle(pci_bus_id);
  NvmlUtilization u{};
  if (!d || !api().utilization || api().utilization(*d, &u) != 0) return std::nullopt;
  return Utilization{static_cast<double>(u.gpu), static_cast<double>(u.memory)};
}

std::optional<double> power_w(const std::string& pci_bus_id) {
  const auto d = handle(pci_bus_id);
  unsigned mw = 0;
  if (!d || !api().power_usage || api().power_usage(*d, &mw) != 0) return std::nullopt;
  return mw / 1000.0;
}

std::optional<std::uint64_t> clock_reasons(const std::string& pci_bus_id) {
  const auto d = handle(pci_bus_id);
  unsigned long long mask = 0;
  if (!d || !api().reasons || api().reasons(*d, &mask) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(mask);
}

std::optional<double> sm_clock_max_mhz(const std::string& pci_bus_id) {
  auto h = handle(pci_bus_id);
  unsigned v = 0;
  if (h && api().max_clock && api().max_clock(*h, kClockSm, &v) == 0) return v;
  return std::nullopt;
}

}  // namespace optbench::nvml
