#pragma once
// The comparisons a claim's verdict reads, asked of the report's claims
// (`python -m report claimed`, report/claims/claimed.py) between the first pass
// and the further processes: a further process repeats only those (and only
// their variants), so a run costs what its verdicts need. The claims are read in
// one place, the report's, so the harness and the report cannot disagree on them.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace optbench {

// case -> the variant names its judged comparisons read (a further or profiling
// process's ExperimentChildSettings::repeat_only; empty: every case).
using CaseVariants = std::map<std::string, std::vector<std::string>>;
// experiment -> its CaseVariants.
using ClaimedComparisons = std::map<std::string, CaseVariants>;

// Whether a case's variant i, named `name`, is among `named` (a CaseVariants
// entry): its baseline always is, since every comparison is against it.
bool among(const std::vector<std::string>& named, std::size_t i, const std::string& name);

struct ClaimedAnswer {
  std::optional<ClaimedComparisons> claimed;  // none: the report could not say
  std::string why_not;                        // then why (every comparison is repeated)
};

// What the report says of the results file at `results_path` as written so far.
ClaimedAnswer ask_claimed(const std::string& results_path);

}  // namespace optbench
