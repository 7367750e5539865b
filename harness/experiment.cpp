#include "harness/experiment.h"

#include <algorithm>
#include <stdexcept>

namespace optbench {

RunProfile parse_profile(const std::string& s) {
  if (s == "quick") return RunProfile::quick;
  if (s == "standard") return RunProfile::standard;
  if (s == "full") return RunProfile::full;
  throw std::invalid_argument("unknown profile '" + s + "' (valid: quick, standard, full)");
}

const char* to_string(RunProfile p) {
  switch (p) {
    case RunProfile::quick:
      return "quick";
    case RunProfile::standard:
      return "standard";
    case RunProfile::full:
      return "full";
  }
  return "standard";
}

Tolerance tolerance_for(c10::ScalarType dtype) {
  // Same defaults as torch.testing.assert_close.
  switch (dtype) {
    case c10::ScalarType::Half:
      return {1e-3, 1e-5};
    case c10::ScalarType::BFloat16:
      return {1.6e-2, 1e-5};
    case c10::ScalarType::Float:
      return {1.3e-6, 1e-5};
    case c10::ScalarType::Double:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

std::string Experiment::unsupported_reason(const RunContext& ctx) const {
  const auto devices = info().devices;
  if (std::find(devices.begin(), devices.end(), ctx.device) != devices.end()) return "";
  return std::string("not meaningful on ") + to_string(ctx.device);
}

bool Experiment::keeps_case(const std::string&, const RunContext&) const { return true; }

double Experiment::recorded_work_ratio(const nlohmann::json&, const RunContext&) const { return 1.0; }

}  // namespace optbench
