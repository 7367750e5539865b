#pragma once
// Validators for numeric command-line options. CLI11's PositiveNumber lets NaN
// through (every comparison with NaN is false, so `--time-budget nan` ran with
// no budget) and prints its bound, DBL_MAX, in 309 digits; these refuse NaN and
// infinities and say in a few words what is expected.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace optbench::cli {

// A finite number > 0 (>= 0 with allow_zero).
inline CLI::Validator finite_number(bool allow_zero) {
  const std::string expected = allow_zero ? "a finite number >= 0" : "a finite number > 0";
  return CLI::Validator(
      [=](std::string& in) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(in.c_str(), &end);
        const bool parsed = !in.empty() && end && *end == '\0' && errno != ERANGE;
        if (!parsed || !std::isfinite(v) || v < 0 || (v == 0 && !allow_zero))
          return "expected " + expected + ", got '" + in + "'";
        return "";
      },
      allow_zero ? "NUMBER>=0" : "NUMBER>0");
}

// A whole number >= lo (and <= hi).
constexpr long long kNoUpperBound = std::numeric_limits<long long>::max();
inline CLI::Validator whole_number(long long lo, long long hi = kNoUpperBound) {
  const std::string range =
      hi == kNoUpperBound ? ">= " + std::to_string(lo) : "from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [=](std::string& in) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(in.c_str(), &end, 10);
        if (in.empty() || !end || *end != '\0' || errno == ERANGE || v < lo || v > hi)
          return "expected a whole number " + range + ", got '" + in + "'";
        return "";
      },
      "INT");
}

// Any unsigned 64-bit whole number (a seed): strtoll stops at 2^63 - 1, and
// strtoull takes "-1" as 2^64 - 1, so neither alone.
inline CLI::Validator whole_number_u64() {
  return CLI::Validator(
      [](std::string& in) -> std::string {
        errno = 0;
        char* end = nullptr;
        (void)std::strtoull(in.c_str(), &end, 10);
        const bool digits = !in.empty() && in.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || !end || *end != '\0' || errno == ERANGE)
          return "expected a whole number from 0 to 18446744073709551615, got '" + in + "'";
        return "";
      },
      "UINT");
}

}  // namespace optbench::cli
