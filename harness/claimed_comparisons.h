#pragma once
// The comparisons a claim's verdict reads, asked of the report's claims
// (`python -m report claimed`, report/claims/claimed.py) between the first pass
// and the further processes: a further process repeats only those (and only
// their variants), so a run costs what its verdicts need. The claims are read in
// one place, the report's, so the harness and the report cannot disagree on them.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace optbench {

// experiment -> case -> the variant names its judged comparisons read.
using ClaimedComparisons = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

struct ClaimedAnswer {
  std::optional<ClaimedComparisons> claimed;  // none: the report could not say
  std::string why_not;                        // then why (every comparison is repeated)
};

// What the report says of the results file at `results_path` as written so far.
ClaimedAnswer ask_claimed(const std::string& results_path);

}  // namespace optbench
