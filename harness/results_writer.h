#pragma once
// The results file, rewritten atomically (temp file + rename) after every case,
// so a crash, an out-of-memory kill or Ctrl-C keeps every finished result and
// the experiment in flight shows as "running" or "interrupted".
#include <string>

#include <nlohmann/json.hpp>

namespace optbench {

constexpr const char* kSchemaName = "optbench-results";
constexpr int kSchemaVersion = 1;

class ResultsWriter {
 public:
  // Writes the header at once so a bad path fails before any work is done.
  ResultsWriter(std::string path, nlohmann::json environment, nlohmann::json config);
  std::size_t begin_experiment(nlohmann::json info);
  void add_case(std::size_t experiment, nlohmann::json result);
  // wall_s: how long the experiment took, everything included (< 0: not recorded).
  void end_experiment(std::size_t experiment, const std::string& status, const std::string& reason = "",
                      double wall_s = -1);
  void set_experiment_field(std::size_t experiment, const std::string& key, nlohmann::json value);
  void finish(const std::string& status);
  const nlohmann::json& document() const { return doc_; }
  const std::string& path() const { return path_; }

 private:
  void flush();
  std::string path_;
  nlohmann::json doc_;
};

}  // namespace optbench
