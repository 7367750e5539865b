#include "harness/interleave.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace optbench {

InterleaveOrder parse_interleave_order(const std::string& s) {
  if (s == "random") return InterleaveOrder::random;
  if (s == "abba") return InterleaveOrder::abba;
  throw std::invalid_argument("unknown interleave order '" + s + "' (valid: random, abba)");
}

const char* to_string(InterleaveOrder o) { return o == InterleaveOrder::random ? "random" : "abba"; }

InterleaveSchedule::InterleaveSchedule(std::size_t n_variants, InterleaveOrder order, std::uint64_t seed)
    : n_(n_variants), order_(order), rng_(seed) {
  if (n_variants == 0) throw std::invalid_argument("a schedule needs at least one variant");
}

std::vector<std::size_t> InterleaveSchedule::next_round() {
  std::vector<std::size_t> idx(n_);
  std::iota(idx.begin(), idx.end(), 0);
  if (order_ == InterleaveOrder::random) {
    std::shuffle(idx.begin(), idx.end(), rng_);
  } else if (round_ % 2 == 1) {
    std::reverse(idx.begin(), idx.end());
  }
  ++round_;
  return idx;
}

}  // namespace optbench
