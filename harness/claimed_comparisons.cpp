#include "harness/claimed_comparisons.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "harness/build_info.h"
#include "harness/subprocess.h"

namespace optbench {

bool among(const std::vector<std::string>& named, std::size_t i, const std::string& name) {
  return i == 0 || std::find(named.begin(), named.end(), name) != named.end();
}

ClaimedAnswer ask_claimed(const std::string& results_path) {
  SpawnOptions o;
  o.argv = report_argv({"claimed", results_path});
  o.search_path = true;
  o.env = environment_with({"PYTHONPATH="});  // the runner's own path only (build_info.h)
  o.err = Stdio::to_stdout;
  o.in = Stdio::discard;
  ClaimedAnswer a;
  try {
    const Captured c = run_captured(o);
    if (c.exit_code != 0) {
      std::string last = c.output;
      while (!last.empty() && last.back() == '\n') last.pop_back();
      if (const auto nl = last.rfind('\n'); nl != std::string::npos) last.erase(0, nl + 1);
      a.why_not = "`report claimed` exited " + std::to_string(c.exit_code) + (last.empty() ? "" : ": " + last);
      return a;
    }
    a.claimed = nlohmann::json::parse(c.output).get<ClaimedComparisons>();
  } catch (const std::exception& e) {
    a.why_not = std::string("`report claimed` gave no answer: ") + e.what();
  }
  return a;
}

}  // namespace optbench
