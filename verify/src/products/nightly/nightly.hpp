// Comparing a nightly summary with the previous night's (both as written to summary.json):
// what got worse is a regression, and the nightly run exits non-zero on any.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codec/nightly_config.hpp"
#include "products/nightly/nightly_input.hpp"  // valid_run_date
#include "products/nightly/nightly_summary.hpp"

namespace rope2d::verify {

// Regressions, one sentence each: a set that passed and no longer does; a larger max error on
// a set of at least 65,536 elements (beyond 1.25x + 0.25 units of 2^-24 S; smaller sets draw
// too few fresh inputs each night for their maximum to be stable); a verifier run more than
// 1.25x + 2 s slower (the same kernel and grad dtype); a golden problem that passed and no
// longer does; a larger sweep max error (beyond 1.5x + 0.5 units).
std::vector<std::string> nightly_regressions(const NightSummary& now, const NightSummary& previous);

}  // namespace rope2d::verify

namespace rope2d::verify {

// The nightly seed of a date (FNV-1a, 32 bits): fresh inputs each night, reproducible.
std::uint64_t nightly_seed(const std::string& date);

}  // namespace rope2d::verify
