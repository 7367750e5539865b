#include "harness/name_hint.h"

#include <algorithm>

namespace optbench {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);  // Levenshtein, one row at a time
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string unknown_name_hint(const std::string& name, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_d = 4;
  for (const auto& n : names)
    if (const std::size_t d = edit_distance(name, n); d < best_d) best = n, best_d = d;
  return (best.empty() ? "" : "did you mean '" + best + "'? ") + "optbench list names them all";
}

}  // namespace optbench
