#pragma once
// Order in which the variants of a case are sampled in each round. Interleaving
// baseline and optimized samples in one process makes clock and thermal drift hit
// both alike, so it cancels in the ratio (Google Benchmark's random interleaving).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace optbench {

enum class InterleaveOrder {
  random,  // a fresh permutation per round, seeded so a run can be replayed
  abba,    // A B, then B A, ...: balanced first position with no randomness
};

InterleaveOrder parse_interleave_order(const std::string& s);  // throws on unknown
const char* to_string(InterleaveOrder o);

class InterleaveSchedule {
 public:
  InterleaveSchedule(std::size_t n_variants, InterleaveOrder order, std::uint64_t seed);
  std::vector<std::size_t> next_round();

 private:
  std::size_t n_;
  InterleaveOrder order_;
  std::mt19937_64 rng_;
  std::uint64_t round_ = 0;
};

}  // namespace optbench
