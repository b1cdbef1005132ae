// The tolerance tiers as an enum the host and the device share (no standard-library types):
// the list of every tier and their count, derived from the list, and the kinds of rule a tier
// judges by. tolerance_core.hpp gives each tier its coefficients and rules and checks, at
// compile time, that the list holds every enumerator in order; tolerance.hpp names them and
// says where their numbers come from.
#pragma once

namespace rope2d::verify {

// The old spellings (strict, faithful_*) stay as aliases so code written against them builds.
enum class Tier {
  float32_bound,
  bf16_noise,
  fp16_noise,
  fp32_noise,
  solexecbench,
  strict = float32_bound,
  faithful_bf16 = bf16_noise,
  faithful_fp16 = fp16_noise,
  faithful_fp32 = fp32_noise,
};

// Every tier, in the enum's order (static_assert'ed in tolerance_core.hpp).
inline constexpr Tier all_tiers[] = {Tier::float32_bound, Tier::bf16_noise, Tier::fp16_noise, Tier::fp32_noise,
                                     Tier::solexecbench};
inline constexpr int tier_count = static_cast<int>(sizeof(all_tiers) / sizeof(all_tiers[0]));

// The rules a tier judges by, beside its numbers: kinds that the comparison, the set verdict and
// the GPU pass switch on, so that what a tier does is its row (tolerance_core.hpp's tier_coeffs,
// tolerance.cpp's table), never a test of which tier it is. The bound-based tiers take the first
// kind of each; the solexecbench tier (SOL-ExecBench's correctness.py) the second of every one.
// How one element is tested.
enum class ElementTest : unsigned char {
  allowance,          // |got - ref| <= the tier's allowance (core::allowance), in double
  float32_atol_rtol,  // |got - ref| <= atol + rtol |ref| in float32 arithmetic (core::sxb_over)
};
// What a NaN or an infinity in the output or the reference does.
enum class NonFinite : unsigned char {
  must_match,  // passes where it is the reference's own value (NaN for NaN, the same infinity)
  fails,       // fails the element, and the whole round, even where both sides hold it
};
// Which outputs count as all zero (a set with all-zero outputs fails).
enum class ZeroTest : unsigned char {
  exact,         // every output is zero while some reference value is not
  float32_norm,  // the output's float32 norm is zero while the reference's is not (core::sxb_norm_nonzero)
};
// How the share of passing elements meets the row's ratio.
enum class RatioTest : unsigned char {
  passed_at_least,    // (count - over) / count >= ratio
  matched_not_below,  // not (1 - over / count < ratio), in double (correctness.py's matched_ratio)
};
// Which elements that share is taken over.
enum class Rounds : unsigned char {
  merged,  // every round of the set together
  each,    // each round of fresh inputs on its own: the set passes when every round does
};
struct TierRules {
  ElementTest element;
  NonFinite nonfinite;
  bool flushed_alternatives;  // a flushed evaluation's result passes too (flush.hpp); else the one reference
  ZeroTest zero;
  RatioTest ratio_test;
  Rounds rounds;
};
// The rules of an error bound, and SOL-ExecBench's.
inline constexpr TierRules bound_rules = {ElementTest::allowance, NonFinite::must_match, true,
                                          ZeroTest::exact,       RatioTest::passed_at_least, Rounds::merged};
inline constexpr TierRules sxb_rules = {ElementTest::float32_atol_rtol, NonFinite::fails, false,
                                        ZeroTest::float32_norm,        RatioTest::matched_not_below, Rounds::each};

}  // namespace rope2d::verify
