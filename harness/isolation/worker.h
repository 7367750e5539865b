#pragma once
// Process isolation, child side: `optbench _worker --settings JSON` (a
// WorkerArgs, serialized by harness/run_settings.h) answers one JSON request per
// line on stdin (prepare, sample, metrics, exit) on the file descriptor it was
// given for replies; its own stdout goes to stderr so library chatter cannot
// break the protocol.
#include <string>

#include "harness/experiment.h"

namespace optbench {

struct WorkerArgs {
  std::string experiment, case_name;
  std::size_t variant = 0;
  RunContext ctx;
};

int run_worker(const WorkerArgs& args);

}  // namespace optbench
