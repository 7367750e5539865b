#pragma once
// What an error about an unknown experiment name adds, on one line (a usage
// error stays one line): the closest name where one is within 3 edits, and
// where the names are listed.
#include <string>
#include <vector>

namespace optbench {

std::string unknown_name_hint(const std::string& name, const std::vector<std::string>& names);

}  // namespace optbench
