#pragma once
// The results file, rewritten atomically (an exclusive temporary file beside it,
// then rename; harness/atomic_file.h) after every case, so a crash, an
// out-of-memory kill or Ctrl-C keeps every finished result and the experiment
// in flight shows as "running" or "interrupted".
//
// Records are written once: a case as it finishes, a further process's record
// of a case beside it (never inside it), an experiment's fields when it knows
// them; only a status moves, from "running" to its outcome. A reader sees each
// record either whole or not yet, and nothing it read changes later.
//
// One run per file: two runs given the same --out (a re-triggered CI job, two
// jobs on one runner) would otherwise replace each other's versions turn by
// turn and leave a file whose header belongs to one run and cases to the other.
// So the writer holds an exclusive flock on the version of the file that is in
// place, from its first write to its last: a second run is refused at once
// (OutputBusy) instead of both producing a file nobody can trust. A lock rather
// than per-run names because both runs would still end in the one --out, the
// last to finish silently replacing the other's results. The lock is on the
// file itself (each new version is locked before it is renamed into place), so
// it leaves nothing behind and dies with its process, even one killed by
// SIGKILL. Readers do not take it and always see a whole version.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/atomic_file.h"
#include "harness/case_result.h"

namespace optbench {

constexpr const char* kSchemaName = "optbench-results";
// Bumped with every change of the format; report/load/versions.py reads each older one.
constexpr int kSchemaVersion = 6;

// Another run is writing the same file.
struct OutputBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ResultsWriter {
 public:
  // Takes the file (OutputBusy if another run holds it), removes temporary
  // files a killed run left beside it, and writes the header at once, so a bad
  // path fails before any work is done (WriteError).
  ResultsWriter(std::string path, nlohmann::json environment, nlohmann::json config);
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Every call below rewrites the file; WriteError when that fails (the file
  // keeps its last whole version, no temporary file is left).
  std::size_t begin_experiment(nlohmann::json info);
  void add_case(std::size_t experiment, nlohmann::json result);
  // wall_s: how long the experiment took, everything included (< 0: not recorded).
  void end_experiment(std::size_t experiment, ExperimentStatus status, const std::string& reason = "",
                      double wall_s = -1);
  // Appends further processes' records of cases (experiments[].repeats;
  // harness/process_repeats.h), with one write of the file.
  void add_repeats(std::size_t experiment, std::vector<nlohmann::json> records);
  // The experiment's profiling process's windows, by variant name, into the
  // first process's record of the case: a variant gets its `breakdown` once
  // (std::logic_error for one it already has), and one the case lacks is left.
  void add_breakdowns(std::size_t experiment, const std::string& case_name, const nlohmann::json& by_variant);
  // Adds fields to an experiment's record: each written once (std::logic_error
  // for a key it already has), so nothing recorded is changed afterwards.
  void add_fields(std::size_t experiment, nlohmann::json fields);
  // The same for several experiments with one write of the file (the end of a
  // run, past its budget, should not rewrite it once per experiment).
  void add_fields(const std::vector<std::pair<std::size_t, nlohmann::json>>& fields);
  void finish(RunStatus status);
  const nlohmann::json& document() const { return doc_; }
  const std::string& path() const { return path_; }

 private:
  void take_lock();
  void flush();
  std::string path_;
  nlohmann::json doc_;
  int locked_fd_ = -1;  // the version in place, flock'ed: this run's claim on path_
};

}  // namespace optbench
