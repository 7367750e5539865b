#pragma once
// What a run costs is planned from, as data (`optbench model`): each profile's
// measurement settings (the results' config.measure), its rounds floor, and the
// budget gate's constants. scripts/lib/estimate_wall.py reads this instead of
// keeping copies that drift.
#include <nlohmann/json.hpp>

namespace optbench {

nlohmann::json cost_model();

}  // namespace optbench
