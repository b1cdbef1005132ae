// Comparing a kernel's float32 outputs with the correctly rounded reference: peak and RMS
// error in units of 2^-24 S, ulps, the share correctly rounded, counts over each tier's
// allowance, and the worst and first failing elements with their inputs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rope2d/verify/model/flush.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

struct ElementReport {
  std::int64_t index = 0;
  ref::Element in{};
  float ref = 0, got = 0;
  double scaled_error = 0;  // |got - ref| / (2^-24 S)
  double ulps = 0;          // |got - ref| / ulp(ref)

  // One line: label set index gc gs t ref got err ulps, floats in hex.
  std::string line(const std::string& set, const char* label = "FAIL") const;
};

// |got - ref|, and that over |ref| (infinite where ref is zero and got is not), in double.
double absolute_difference(const ElementReport& r);
double relative_difference(const ElementReport& r);

struct Metrics {
  std::int64_t count = 0;
  std::int64_t correctly_rounded = 0;   // bit-equal to the reference (NaN matches NaN)
  std::int64_t nonfinite_mismatch = 0;  // NaN/Inf where the reference has none, or the reverse
  std::int64_t poisoned = 0;            // still holding the poison pattern: never written
  bool all_zero = false;                // every output zero while the reference is not
  // What SOL-ExecBench's rules look at (the solexecbench tier's rule kinds, tier.hpp; any row
  // with those kinds reads them): NaN or Inf anywhere, matched or not (NonFinite::fails); an
  // output whose float32 norm is zero (core::sxb_norm_nonzero) where the reference's is not
  // (ZeroTest::float32_norm); the rounds closed (close_round; a Metrics of one comparison not
  // yet closed is judged as one round).
  struct Sxb {
    std::int64_t nonfinite = 0;  // elements where the output or the reference is NaN or Inf
    std::int64_t nan = 0;        // of which NaN (correctness.py's has_nan; has_inf otherwise)
    bool all_zero = false;       // the output's float32 norm is zero, the reference's is not
    std::int64_t rounds = 0;
    // Its error metrics over the finite elements, in float32 as correctness.py computes them:
    // |out - ref| and |out - ref| / max(|ref|, atol).
    double max_abs = 0, max_rel = 0;
  } sxb;
  double max_scaled = 0, sum_sq_scaled = 0, max_ulp = 0;
  std::array<std::int64_t, tier_count> over{};       // elements over each tier's allowance
  std::array<std::int64_t, tier_count> over_ieee{};  // the same with subnormals judged IEEE only
  // Rounds each tier's rules failed, each round judged on its own (Rounds::each reads them).
  std::array<std::int64_t, tier_count> failed_rounds{};
  Subnormals subnormals = Subnormals::flush_allowed;  // how `over` was judged
  // Elements where a subnormal value takes part (flush.hpp), by the evaluation closest to
  // what the kernel returned within the float32-bound tier: IEEE (mask 0) or the flushed
  // values' mask; those that fit none are `subnormal_unexplained`.
  std::array<std::int64_t, flush_mask_count> subnormal_modes{};
  std::int64_t subnormal_unexplained = 0;
  std::int64_t overflow_accepted = 0;  // an infinity (or FLT_MAX) a bounded-error evaluation can return
  std::optional<ElementReport> worst;           // largest scaled error
  // The finite elements of greatest |got - ref| and of greatest |got - ref| / |ref| (as
  // torch.testing.assert_close reports them; infinite where ref is zero). Kept by compare();
  // the GPU pass (gpu_check.hpp) keeps neither, only their values (sxb.max_abs, max_rel).
  std::optional<ElementReport> greatest_abs, greatest_rel;
  // Error histogram (core::error_bin): bin 0 exact, bin 1 scaled error up to 2^-8, bin k in
  // 2..18 in (2^(k-10), 2^(k-9)], bin 19 beyond 2^9.
  std::array<std::int64_t, 20> histogram{};
  // Largest scaled error by angle binade: bin k holds |t| in [2^(k-1), 2^k), bin 0 below 1.
  std::array<double, 26> max_by_angle{};
  std::vector<ElementReport> failures;          // first elements over the gate tier

  double rms_scaled() const;
  // The subnormal behaviour observed: "IEEE", "flushes angle (12 elements)", ..., or "no
  // subnormal values" when none took part.
  std::string subnormal_mode() const;
  bool passes(Tier t) const;
  // The verdict with subnormals judged as asked (ieee: the flushed alternatives do not count).
  bool passes(Tier t, Subnormals s) const;
  void merge(const Metrics& other, std::size_t max_failures);
  // The verdict of any row (its numbers and rules alone) given its count of elements over and
  // of failed rounds; passes(t, s) is verdict(rule(t), ...) with tier t's counts.
  bool verdict(const TierRule& r, std::int64_t over_count, std::int64_t failed_round_count) const;
  // A row's verdict of these counts taken as one round (whatever its Rounds rule).
  bool round_passes(const TierRule& r, std::int64_t over_count) const;
  // Marks these counts as one whole round (before merging it with the others): each tier's
  // round verdict goes into failed_rounds.
  void close_round();
  // Why the solexecbench tier and tier t disagree on this set, or "" when they agree.
  std::string sxb_disagreement(Tier t) const;
};

// FAIL lines a set keeps (the first by index): every judge's default.
inline constexpr std::size_t max_failures_kept = 10;

// The bit pattern outputs are poisoned with before a kernel runs (a quiet NaN with a payload).
inline constexpr std::uint32_t poison_bits = 0x7fc0dead;

// subnormals = ieee demands IEEE behaviour: flushed alternatives then do not pass.
Metrics compare(const Problem& p, const Expected& x, const float* out, Tier gate, std::size_t max_failures = max_failures_kept,
                Subnormals subnormals = Subnormals::flush_allowed);

}  // namespace rope2d::verify
