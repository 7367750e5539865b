#pragma once
// One progress line per case on stderr, with elapsed time and an ETA, so a long
// run shows where it is and a log shows what each case concluded.
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace optbench {

class Progress {
 public:
  Progress(std::size_t total_cases, bool enabled);
  void add_cases(std::size_t n) { total_ += n; }  // experiments enumerate their cases when their turn comes
  void case_started(const std::string& label);
  void case_finished(const std::string& label, const nlohmann::json& result);
  static std::string format_duration(double seconds);
  static std::string headline(const nlohmann::json& result);  // "pinned 2.41x [2.38, 2.44]" etc.

 private:
  std::size_t total_, done_ = 0;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace optbench
