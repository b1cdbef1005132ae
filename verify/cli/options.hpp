// Checks of numeric options, shared by the subcommands: a value out of range is refused with
// its name, never saturated or wrapped.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

#include "codec/input.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::cli {

// Seeds: decimal integers in [0, 2^48], so that every derived seed (base + per-set and
// per-round offsets) stays below 2^64 without wrapping.
inline CLI::Validator seed_range() {
  return CLI::Validator(
      [](std::string& s) {
        try {
          verify::parse_uint(s, "seed", std::uint64_t{1} << 48);
        } catch (const std::invalid_argument&) {
          return "expected a decimal integer in [0, 2^48], found '" + s.substr(0, 40) + "'";
        }
        return std::string();
      },
      "SEED in [0, 2^48]");
}

// A finite number of seconds in (0, hi]: NaN, infinities, zero and negatives are refused.
inline CLI::Validator seconds_range(double hi) {
  return CLI::Validator(
      [hi](std::string& s) {
        char* end = nullptr;
        const double x = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !std::isfinite(x) || !(x > 0) || x > hi)
          return "expected a finite number of seconds in (0, " + std::to_string(static_cast<long>(hi)) + "], found '" +
                 s.substr(0, 40) + "'";
        return std::string();
      },
      "SECONDS");
}

// --tier's value read once: a tier's name, or an old name, which warns on stderr; anything else is
// refused naming the option and the names it takes.
inline verify::Tier tier_option(const std::string& s) {
  std::string deprecation;
  const auto tier = verify::parse_tier(s, &deprecation);
  if (!tier) throw std::invalid_argument("--tier: expected one of " + verify::tier_names() + ", found '" + s + "'");
  if (!deprecation.empty()) std::cerr << deprecation << "\n";
  return *tier;
}

}  // namespace rope2d::cli
