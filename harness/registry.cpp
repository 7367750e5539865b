#include "harness/registry.h"

#include <algorithm>
#include <regex>
#include <stdexcept>

namespace optbench {

Registry& Registry::instance() {
  static Registry r;
  return r;
}

bool Registry::add(std::unique_ptr<Experiment> e) {
  const auto name = e->info().name;
  for (const auto& x : experiments_)
    if (x->info().name == name) throw std::logic_error("experiment '" + name + "' registered twice");
  experiments_.push_back(std::move(e));
  std::sort(experiments_.begin(), experiments_.end(),
            [](const auto& a, const auto& b) { return a->info().name < b->info().name; });
  return true;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& e : experiments_) out.push_back(e->info().name);
  return out;
}

std::vector<const Experiment*> Registry::match(const std::string& regex) const {
  std::regex re;
  try {
    re = std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& err) {
    throw std::invalid_argument("invalid --filter regex '" + regex + "': " + err.what());
  }
  std::vector<const Experiment*> out;
  for (const auto& e : experiments_)
    if (std::regex_search(e->info().name, re)) out.push_back(e.get());
  return out;
}

}  // namespace optbench
