#pragma once
// The environment block every results file carries, so a number can be traced to
// the machine, software and numerics flags that produced it.
#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/device.h"

namespace optbench {

nlohmann::json capture_environment(DeviceKind device, const std::vector<std::string>& argv);

// The instruction-set extensions that change which CPU kernels LibTorch and oneDNN
// run (kIsaFlags in environment.cpp) that a /proc/cpuinfo text lists on its "flags"
// line (x86) or "Features" line (ARM), in that list's order; null where the text has
// neither line (not Linux, or unreadable): unknown, not "none".
nlohmann::json cpu_isa(std::istream& cpuinfo);

// The CPU kernel level ATen's dispatcher chose ("AVX512", "AVX2", "DEFAULT", "SVE256"...:
// at::get_cpu_capability(), after ATEN_CPU_CAPABILITY); null where it cannot be read.
nlohmann::json torch_cpu_capability();

}  // namespace optbench
