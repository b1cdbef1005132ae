// The tolerance table: one entry per tier, each with the number it uses and where that number
// comes from. Every comparison in the suite goes through within() / allowance(), which apply
// the table to one element, flush-to-zero alternatives and overflow included.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rope2d/ref/backward.hpp"
#include "rope2d/verify/model/tier.hpp"

namespace rope2d::verify {

// How subnormal values may be treated: flushed to zero (any of them, flush.hpp), or IEEE only.
enum class Subnormals { flush_allowed, ieee };

struct TierRule {
  Tier tier;
  std::string_view name;
  std::string_view old_name;  // deprecated spelling still accepted
  double scale_coeff;         // times S = |gc sin t| + |gs cos t|
  double ref_coeff;           // times |ref|
  double atol;                // absolute
  double ratio;               // fraction of elements that must pass
  bool bound_based;           // a bound on the error of an evaluation (accepts overflow to inf)
  TierRules rules;            // how it judges an element and a set (tier.hpp)
  std::string_view source;
};

const TierRule& rule(Tier t);
std::string_view name(Tier t);
// Accepts the names and the deprecated old names; for an old name, puts a warning in
// *deprecation (when given: the caller decides where it goes) and returns the tier it stands for.
std::optional<Tier> parse_tier(std::string_view s, std::string* deprecation = nullptr);
// "float32-bound, bf16-noise, ..." for help strings and messages.
std::string tier_names();

// The largest |out - ref| a tier accepts for one element, where ref is the correctly rounded
// float32 result (or the exact value, near overflow), S its condition scale and gc the grad
// (for the subnormal term).
double allowance(Tier t, double ref, double scale, double gc);

// Whether got is acceptable for the problem e with correctly rounded result ref and scale S
// under tier t, IEEE evaluation only: within the allowance, NaN for NaN, the same infinity
// for non-finite inputs, and near overflow what a bounded-error evaluation can return.
bool within(Tier t, const ref::Element& e, float ref, double scale, float got);
// The same for any row, by its numbers and rules alone (within(t, ...) is within(rule(t), ...)).
bool within(const TierRule& r, const ref::Element& e, float ref, double scale, float got);

// The error of got in the tier's terms: |got - ref|, or near overflow the distance of exact
// from the nearest unrounded value that gives got (ref/overflow.hpp). Infinity when no
// finite error describes it (NaN against a number, a wrong infinity).
double judged_error(const ref::Element& e, float ref, float got);

// The allowance within() applies, for reporting (uses the exact value near overflow).
double judged_allowance(Tier t, const ref::Element& e, float ref, double scale);

}  // namespace rope2d::verify
