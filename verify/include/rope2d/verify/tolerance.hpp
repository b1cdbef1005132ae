// The tolerance table: one entry per tier, each with the number it uses and where that number
// comes from. Every comparison in the suite goes through allowance() / required_ratio().
#pragma once

#include <optional>
#include <string_view>

namespace rope2d::verify {

enum class Tier { strict, faithful_bf16, faithful_fp16, faithful_fp32, solexecbench };

inline constexpr Tier all_tiers[] = {Tier::strict, Tier::faithful_bf16, Tier::faithful_fp16, Tier::faithful_fp32,
                                     Tier::solexecbench};
inline constexpr int tier_count = 5;

struct TierRule {
  Tier tier;
  std::string_view name;
  double scale_coeff;   // times S = |gc sin t| + |gs cos t|
  double ref_coeff;     // times |ref|
  double atol;          // absolute
  double ratio;         // fraction of elements that must pass
  std::string_view source;
};

const TierRule& rule(Tier t);
std::string_view name(Tier t);
std::optional<Tier> parse_tier(std::string_view s);

// The largest |out - ref| a tier accepts for one element, where ref is the correctly rounded
// float32 result, S its condition scale and gc the grad (for the subnormal term).
double allowance(Tier t, double ref, double scale, double gc);

}  // namespace rope2d::verify
