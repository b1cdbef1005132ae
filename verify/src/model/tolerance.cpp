// The tolerance table and its per-element allowance.
#include "rope2d/verify/model/tolerance.hpp"

#include <cmath>
#include <iterator>

#include "rope2d/ref/float32_bound.hpp"
#include "rope2d/ref/overflow.hpp"
#include "rope2d/verify/model/tolerance_core.hpp"

namespace rope2d::verify {

namespace {

// The numbers come from core::tier_coeffs (tolerance_core.hpp, shared with the GPU judge);
// each row says where its numbers come from.
constexpr TierRule row(Tier t, std::string_view name, std::string_view old_name, double ratio, std::string_view source) {
  const core::TierCoeffs c = core::tier_coeffs(t);
  return {t, name, old_name, c.scale_coeff, c.ref_coeff, c.atol, ratio, c.bound_based, c.rules, source};
}

constexpr TierRule table[] = {
    row(Tier::float32_bound, "float32-bound", "strict", 1.0,
     "the proven error bound of a float32 evaluation with sin/cos within 2 ulp of the correctly rounded value "
     "(CUDA sincosf as documented), reference/FLOAT32_BOUND.md: c = 6 + 19u, d = u"),
    row(Tier::bf16_noise, "bf16-noise", "faithful-bf16", 1.0,
        "rounding the grads to bf16 moves the result by up to 2^-8 S: an error below that is below the input's noise"),
    row(Tier::fp16_noise, "fp16-noise", "faithful-fp16", 1.0, "rounding the grads to fp16 moves the result by up to 2^-11 S"),
    row(Tier::fp32_noise, "fp32-noise", "faithful-fp32", 1.0,
     "rounding the grads to fp32 moves the result by up to 2^-24 S; stricter than float32-bound: float32 evaluation "
     "alone errs by more, so only kernels that compute in higher precision meet it"),
    row(Tier::solexecbench, "solexecbench", "", 0.99,
        "SOL-ExecBench's correctness.py with 090's workload.jsonl (max_atol = max_rtol = 1e-5, required_matched_ratio "
        "0.99): |out - ref| <= atol + rtol |ref| in float32 arithmetic, per round; any NaN or Inf in the output or the "
        "reference fails the round, even the same one on both sides; so does an output whose float32 norm is zero where "
        "the reference's is not. Judged against the correctly rounded result; the official harness compares with "
        "PyTorch's float32 evaluation (docs/solexecbench.md)"),
};

// One row per tier, row k for Tier(k): a tier without its row fails here.
constexpr bool rows_in_order() {
  for (int k = 0; k < tier_count; ++k)
    if (table[k].tier != static_cast<Tier>(k)) return false;
  return true;
}
static_assert(std::size(table) == tier_count, "tolerance.cpp's table needs one row per Tier");
static_assert(rows_in_order(), "tolerance.cpp's table lists the tiers in the enum's order");

bool finite_inputs(const ref::Element& e) { return std::isfinite(e.gc) && std::isfinite(e.gs) && std::isfinite(e.t); }

}  // namespace

const TierRule& rule(Tier t) { return table[static_cast<int>(t)]; }

std::string_view name(Tier t) { return rule(t).name; }

std::optional<Tier> parse_tier(std::string_view s, std::string* deprecation) {
  for (const TierRule& r : table) {
    if (r.name == s) return r.tier;
    if (!r.old_name.empty() && r.old_name == s) {
      if (deprecation)
        *deprecation = "warning: tier '" + std::string(s) + "' is deprecated; it is now called '" + std::string(r.name) + "'";
      return r.tier;
    }
  }
  return std::nullopt;
}

std::string tier_names() {
  std::string s;
  for (const TierRule& r : table) {
    if (!s.empty()) s += ", ";
    s += r.name;
  }
  return s;
}

double allowance(Tier t, double ref, double scale, double gc) {
  return core::allowance(t, ref, scale, gc);
}

namespace {

// Near overflow: got or ref infinite while the inputs are finite.
bool overflow_case(const ref::Element& e, float ref, float got) {
  return finite_inputs(e) && !std::isnan(ref) && !std::isnan(got) && (std::isinf(ref) || std::isinf(got));
}

}  // namespace

double judged_error(const ref::Element& e, float ref, float got) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got) ? 0.0 : INFINITY;
  if (overflow_case(e, ref, got)) return ref::overflow_error(got, ref::unrounded_value(e));
  if (std::isinf(ref) || std::isinf(got)) return ref == got ? 0.0 : INFINITY;  // non-finite inputs
  return std::fabs(static_cast<double>(got) - ref);
}

double judged_allowance(Tier t, const ref::Element& e, float ref, double scale) {
  if (std::isinf(ref) && finite_inputs(e)) return allowance(t, ref::unrounded_value(e), scale, e.gc);
  return allowance(t, ref, scale, e.gc);
}

namespace {

core::TierCoeffs coeffs_of(const TierRule& r) { return {r.scale_coeff, r.ref_coeff, r.atol, r.bound_based, r.rules}; }

}  // namespace

bool within(Tier t, const ref::Element& e, float ref, double scale, float got) { return within(rule(t), e, ref, scale, got); }

bool within(const TierRule& r, const ref::Element& e, float ref, double scale, float got) {
  // NonFinite::fails: any NaN or Inf over, even the same one on both sides (SOL-ExecBench).
  if (r.rules.nonfinite == NonFinite::fails && (!std::isfinite(ref) || !std::isfinite(got))) return false;
  const core::TierCoeffs c = coeffs_of(r);
  // SOL-ExecBench's element test, exactly: float32 arithmetic, against the one reference given.
  if (r.rules.element == ElementTest::float32_atol_rtol) return !core::atol_rtol_over(c, got, ref);
  const double err = judged_error(e, ref, got);
  if (err == 0) return true;
  if (!std::isfinite(err)) return false;
  if (overflow_case(e, ref, got)) {
    // Only a bound on an evaluation's error says what it may return near overflow.
    if (!r.bound_based) return false;
    return err <= core::allowance(c, ref::unrounded_value(e), scale, e.gc);
  }
  return err <= core::allowance(c, ref, scale, e.gc);
}

}  // namespace rope2d::verify
