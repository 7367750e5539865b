#pragma once
// The environment block every results file carries, so a number can be traced to
// the machine, software and numerics flags that produced it.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/device.h"

namespace optbench {

nlohmann::json capture_environment(DeviceKind device, const std::vector<std::string>& argv);

}  // namespace optbench
