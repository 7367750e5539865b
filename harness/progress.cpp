#include "harness/progress.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "harness/case_result.h"

namespace optbench {

Progress::Progress(std::size_t total_cases, bool enabled)
    : total_(total_cases), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

std::string Progress::format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long t = std::lround(s);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

std::string Progress::headline(const nlohmann::json& r) {
  const std::string status = r.value("status", "");
  if (status == to_string(CaseStatus::skipped)) return "skipped: " + r.value("reason", "");
  if (status == to_string(CaseStatus::failed)) return "FAILED: " + r.value("reason", "");
  if (status == to_string(CaseStatus::not_run)) return "not run: " + r.value("reason", "");
  std::ostringstream os;
  os.precision(3);
  for (const auto& c : r.value("comparisons", nlohmann::json::array())) {
    os << c.value("variant", "?") << ' ';
    if (c.contains("speedup") && c["speedup"].is_number() && c.value("below_floor", false)) {
      os << c["speedup"].get<double>() << "x (n = " << c.value("rounds", 0) << ", no CI)";
    } else if (c.contains("speedup") && c["speedup"].is_number()) {
      os << c["speedup"].get<double>() << "x [" << c.value("ci_low", 0.0) << ", " << c.value("ci_high", 0.0) << "]";
    } else {
      os << "n/a";
    }
    if (c.contains("verification") && c["verification"].value("status", "") == to_string(VerificationStatus::failed))
      os << " VERIFY-FAILED";
    os << "  ";
  }
  if (r.value("comparisons", nlohmann::json::array()).empty()) {
    const auto& v = r["variants"][0];
    if (v.contains("stats") && v["stats"].is_object())
      os << "median " << v["stats"].value("median", 0.0) * 1e3 << " ms  ";
  }
  for (const auto& v : r.value("variants", nlohmann::json::array()))
    if (v.value("status", to_string(VariantStatus::ok)) != to_string(VariantStatus::ok))
      os << v.value("name", "?") << ": " << v.value("status", "") << "  ";
  os << "(" << r.value("stop_reason", "?") << ", " << r.value("rounds", 0) << " rounds)";
  if (status == to_string(CaseStatus::interrupted)) os << " INTERRUPTED";
  return os.str();
}

void Progress::case_started(const std::string& label) {
  if (!enabled_) return;
  std::fprintf(stderr, "[%zu/%zu] %s ...\n", done_ + 1, total_, label.c_str());
}

void Progress::case_finished(const std::string& label, const nlohmann::json& result) {
  ++done_;
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : NAN;
  std::fprintf(stderr, "[%zu/%zu] %s: %s  elapsed %s, ETA %s\n", done_, total_, label.c_str(), headline(result).c_str(),
               format_duration(elapsed).c_str(), format_duration(eta).c_str());
}

}  // namespace optbench
