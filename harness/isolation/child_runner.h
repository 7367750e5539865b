#pragma once
// Process isolation, parent side: a variant built, warmed up and sampled in a
// child process of its own (`optbench _worker ...`), driven over a pipe with one
// JSON line per request and reply. The child finds its variant again through the
// registry (experiment name, case name, variant index and the run's context, given
// as one WorkerArgs), so only names cross; samples come back as numbers. Interleaving is kept: the
// parent asks each child for one sample per round, one child at a time.
#include <memory>
#include <string>

#include "harness/experiment.h"
#include "harness/variant_runner.h"

namespace optbench {

// How a child process finds a case again.
struct WorkerOrigin {
  std::string executable;  // an optbench binary (normally /proc/self/exe)
  std::string experiment;
  RunContext ctx;
};

std::unique_ptr<VariantRunner> make_child_runner(const WorkerOrigin& origin, const std::string& case_name,
                                                 std::size_t variant_index);

}  // namespace optbench
