#pragma once
// `optbench plan`: what a run of a profile on a device is expected to cost, per
// experiment, from results files an earlier run wrote (harness/run_plan.h).
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace optbench {

struct PlanFlags {
  std::string device = "cuda", profile = "standard", filter = ".*";
  std::vector<std::string> files;
  bool json = false;
};

CLI::App* add_plan_command(CLI::App& app, PlanFlags& f);
// Prints the plan; 0, or 2 where no file given could be read.
int cmd_plan(const PlanFlags& f);

}  // namespace optbench
