#pragma once
// The files a guarded experiment's process writes beside the run's results
// file: "<out>.part-<experiment>" and that file's own temporary files. They
// belong to the run holding <out>'s lock (harness/results_writer.h), which
// removes them when the experiment ends however its process ended, and
// removes those of a run that was killed before it could.
#include <string>

namespace optbench {

std::string part_path(const std::string& out, const std::string& experiment);
// The part file and its temporary files.
void remove_part(const std::string& part);
// Every "<out>.part-<name>" (and its temporary files) in out's folder.
void remove_leftover_parts(const std::string& out);

}  // namespace optbench
