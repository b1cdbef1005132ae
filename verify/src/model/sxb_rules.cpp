// SOL-ExecBench's compute_error_stats (sxb_rules.hpp), whole tensor, in correctness.py's order.
#include "rope2d/verify/model/sxb_rules.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rope2d::verify {

namespace {

bool both_neg_inf(float o, float r) { return o == -INFINITY && r == -INFINITY; }

// check_tensor_sanity: non-finite values (except matched -inf when allowed), then the norms.
bool sanity_fails(std::span<const float> out, std::span<const float> ref, const SxbTolerance& tol, SxbStats& s) {
  bool nonfinite = false, nan = false, norm_ref = false, norm_out = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool skip = tol.allow_negative_inf && both_neg_inf(out[i], ref[i]);
    nonfinite |= !skip && (!std::isfinite(out[i]) || !std::isfinite(ref[i]));
    nan |= std::isnan(out[i]) || std::isnan(ref[i]);  // over every position, as has_nan is
    norm_ref |= core::sxb_norm_nonzero(ref[i]);
    norm_out |= core::sxb_norm_nonzero(out[i]);
  }
  if (nonfinite) {
    s.has_nan = nan;
    s.has_inf = !nan;
    return true;
  }
  // The all-zero test compares float32 norms: zero exactly when no square survives in float32.
  if (norm_ref && !norm_out) {
    s.all_zero = true;
    double sq = 0;  // correctness.py reports the reference's norm as both errors
    for (float r : ref) sq += static_cast<double>(r) * r;
    s.max_abs = s.max_rel = static_cast<float>(std::sqrt(sq));
    return true;
  }
  return false;
}

}  // namespace

SxbStats sxb_error_stats(std::span<const float> out, std::span<const float> ref, const SxbTolerance& tol) {
  if (out.size() != ref.size()) throw std::invalid_argument("sxb_error_stats: output and reference differ in length");
  SxbStats s;
  if (sanity_fails(out, ref, tol, s)) {
    s.exceeds = true;
    s.matched_ratio = 0;
    return s;
  }
  std::int64_t total = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (tol.allow_negative_inf && both_neg_inf(out[i], ref[i])) continue;  // left out of the statistics
    ++total;
    const core::SxbErrors e = core::sxb_errors(out[i], ref[i], tol.atol);
    s.max_abs = std::max(s.max_abs, static_cast<double>(e.abs));
    s.max_rel = std::max(s.max_rel, static_cast<double>(e.rel));
    s.over += core::sxb_over(out[i], ref[i], tol.atol, tol.rtol);
  }
  if (total == 0) return s;
  s.matched_ratio = std::clamp(1.0 - static_cast<double>(s.over) / static_cast<double>(total), 0.0, 1.0);
  s.exceeds = s.matched_ratio < tol.required_matched_ratio || (tol.max_error_cap && s.max_abs > *tol.max_error_cap);
  return s;
}

std::string sxb_export_exclusion(std::span<const float> exact, std::span<const double> scale, const SxbTolerance& tol) {
  if (exact.size() != scale.size()) throw std::invalid_argument("sxb_export_exclusion: results and scales differ in length");
  bool norm = false, any_scale = false;
  std::int64_t may_exceed = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const std::string at = " (element " + std::to_string(i) + ")";
    if (!std::isfinite(exact[i]) || !std::isfinite(scale[i]))
      return "the exact result holds NaN or Inf" + at + ": SOL-ExecBench fails any NaN/Inf, even where its reference has the same";
    // A float32 evaluation of the terms overflows near FLT_MAX (2^128): its reference would hold Inf.
    if (scale[i] >= 0x1p127) return "a float32 evaluation may overflow to Inf" + at + ": |gc sin t| + |gs cos t| >= 2^127";
    norm |= core::sxb_norm_nonzero(exact[i]);
    any_scale |= scale[i] != 0;
    const double bound = core::allowance(Tier::float32_bound, exact[i], scale[i], 0.0);  // float32-bound: the reference's own error
    const float tolerance = static_cast<float>(static_cast<double>(tol.atol) + static_cast<float>(static_cast<double>(tol.rtol) * std::fabs(exact[i])));
    may_exceed += bound > tolerance;
  }
  if (!norm && any_scale)
    return "all-zero trap: the exact result's float32 norm is zero, while a float32 evaluation's need not be";
  const double matched = 1.0 - static_cast<double>(may_exceed) / static_cast<double>(exact.size());
  if (matched < tol.required_matched_ratio)
    return std::to_string(may_exceed) + " of " + std::to_string(exact.size()) +
           " elements: a float32 evaluation within the proven bound may differ from the exact result by more than atol + rtol |ref|";
  return "";
}

}  // namespace rope2d::verify
