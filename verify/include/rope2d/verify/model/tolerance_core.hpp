// The per-element numbers of the tolerance table and of the comparison, for the host and the
// device from one source (ROPE2D_HD): each tier's coefficients, the allowance of one element,
// the ulp of a float32 reference, the histogram bins of the error and of the angle, and the
// cheap test for subnormal values. tolerance.cpp, flush.cpp and metrics.cpp use these; so does
// the GPU judge (verify/src/judge/gpu_check/kernel.cu) and its host twin.
#pragma once

#include <math.h>

#include "rope2d/ref/bound_formulas.hpp"
#include "rope2d/ref/float32_bound.hpp"
#include "rope2d/ref/hd.hpp"
#include "rope2d/verify/model/tier.hpp"

namespace rope2d::verify::core {

inline constexpr double u24 = 0x1p-24;
// Scalars (usable in device code): the float32 bound for CUDA's documented sincosf.
inline constexpr double bound_c = ref::cuda_sincosf_bound.c;
inline constexpr double bound_d = ref::cuda_sincosf_bound.d;
inline constexpr double bound_eta_grad = ref::cuda_sincosf_bound.eta_grad;
inline constexpr double bound_eta_abs = ref::cuda_sincosf_bound.eta_abs;
// Where a product g * f may be subnormal in the float32 evaluation (float32_bound.hpp).
inline constexpr double product_window = ref::cuda_sincosf_bound.product_window;
inline constexpr double tiny = 0x1p-126;  // smallest normal float32

// The constants of the formulas written once in reference/proofs/formulas.def (the subnormal
// term, the bound, the result window), from which bound_formulas.hpp and the Gappa scripts
// are generated; CU = c u is exact (a power-of-two scaling).
ROPE2D_HD constexpr ref::formula::BoundConstants bound_constants() {
  ref::formula::BoundConstants k{};
  k.U = u24;
  k.CU = bound_c * u24;
  k.D = bound_d;
  k.ETA_GRAD = bound_eta_grad;
  k.ETA_ABS = bound_eta_abs;
  k.TINY = tiny;
  return k;
}

struct TierCoeffs {
  double scale_coeff;  // times S = |gc sin t| + |gs cos t|
  double ref_coeff;    // times |ref| (rtol for ElementTest::float32_atol_rtol)
  double atol;         // absolute
  bool bound_based;    // a bound on an evaluation's error: the subnormal term, overflow accepted
  TierRules rules;     // how it judges (tier.hpp)
};

// Judged against the correctly rounded ref rather than the exact value, every tier but
// solexecbench adds half an ulp of ref (at most u |ref|) to what it allows against the exact
// value, so an honest kernel is never failed for the reference's own rounding. The sources of
// the numbers are in tolerance.cpp's table, which is built from these.
ROPE2D_HD constexpr TierCoeffs tier_coeffs(Tier t) {
  switch (t) {  // no default: a new Tier is a compile error here (-Werror=switch)
    // float32-bound: d |exact| <= d (1 + u) |ref|, and ref is within u |ref| of exact: 2u + u^2
    case Tier::float32_bound: return {bound_c * u24, bound_d * (1 + u24) + u24, 0, true, bound_rules};
    case Tier::bf16_noise: return {0x1p-8, u24, 0, true, bound_rules};
    case Tier::fp16_noise: return {0x1p-11, u24, 0, true, bound_rules};
    case Tier::fp32_noise: return {u24, u24, 0, true, bound_rules};
    case Tier::solexecbench: return {0, 1e-5, 1e-5, false, sxb_rules};
  }
  return {-1, -1, -1, false, bound_rules};  // not a Tier: negative numbers, which listed_in_order() looks for
}

// all_tiers (tier.hpp) holds every enumerator in the enum's order: entry k is Tier(k) and has
// coefficients, and Tier(tier_count), one past the list, has none (is no enumerator). A tier
// added to the enum but not to the list, or listed out of order, fails this static_assert.
constexpr bool listed_in_order() {
  for (int k = 0; k < tier_count; ++k)
    if (all_tiers[k] != static_cast<Tier>(k) || tier_coeffs(all_tiers[k]).atol < 0) return false;
  return tier_coeffs(static_cast<Tier>(tier_count)).atol < 0;
}
static_assert(listed_in_order(), "all_tiers (tier.hpp) must list every Tier, in the enum's order");

// SOL-ExecBench's element test (core/bench/correctness.py), as PyTorch evaluates it in float32:
// |out - ref| > atol + rtol*|ref|, each operation rounded to float32, a NaN or Inf difference
// over. Each operation is done in double and rounded once to float32: for one operation on
// float32 operands that equals the float32 operation (double has 53 >= 2*24+2 bits), and no
// compiler can fuse it into an FMA. The tier's atol and rtol are float32(1e-5), as PyTorch
// converts a Python scalar for a float32 tensor.
inline constexpr int sxb_tier = static_cast<int>(Tier::solexecbench);
inline constexpr float sxb_atol = 1e-5f, sxb_rtol = 1e-5f;
ROPE2D_HD inline bool sxb_over(float got, float ref, float atol = sxb_atol, float rtol = sxb_rtol) {
  const float diff = fabsf(static_cast<float>(static_cast<double>(got) - static_cast<double>(ref)));
  const float scaled = static_cast<float>(static_cast<double>(rtol) * fabsf(ref));
  const float bound = static_cast<float>(static_cast<double>(atol) + static_cast<double>(scaled));
  return diff > bound || !isfinite(diff);
}
// ElementTest::float32_atol_rtol with a row's numbers, converted to float32 as PyTorch converts
// a Python scalar (for the solexecbench row: sxb_atol and sxb_rtol exactly).
ROPE2D_HD inline bool atol_rtol_over(const TierCoeffs& r, float got, float ref) {
  return sxb_over(got, ref, static_cast<float>(r.atol), static_cast<float>(r.ref_coeff));
}
static_assert(static_cast<float>(tier_coeffs(Tier::solexecbench).atol) == sxb_atol &&
                  static_cast<float>(tier_coeffs(Tier::solexecbench).ref_coeff) == sxb_rtol,
              "the solexecbench row's atol and rtol are correctness.py's, as float32");
// correctness.py's reported errors of one finite element: |out - ref| and that over
// max(|ref|, atol), each rounded to float32.
struct SxbErrors {
  float abs, rel;
};
ROPE2D_HD inline SxbErrors sxb_errors(float got, float ref, float atol = sxb_atol) {
  const float diff = fabsf(static_cast<float>(static_cast<double>(got) - static_cast<double>(ref)));
  const float floor = fabsf(ref) > atol ? fabsf(ref) : atol;
  return {diff, static_cast<float>(static_cast<double>(diff) / static_cast<double>(floor))};
}
// Whether x adds to a float32 vector_norm (its float32 square is not zero): |x| > 2^-75. The
// all-zero test compares norms, so values this small count as zero on both sides.
ROPE2D_HD inline bool sxb_norm_nonzero(float x) { return fabsf(x) > 0x1p-75f; }

// The largest |out - ref| tier t accepts for one element (ref correctly rounded, or the exact
// value near overflow; S its condition scale; gc the grad, for the subnormal term).
ROPE2D_HD inline double allowance(const TierCoeffs& r, double ref, double scale, double gc) {
  if (!r.bound_based) return r.atol + r.ref_coeff * fabs(ref);
  // The subnormal-range term of the proven bound (eta), for every bound-based tier, plus
  // half the smallest subnormal spacing for the reference's own rounding there.
  const double eta = ref::formula::eta(bound_constants(), fabs(gc)) + ref::subnormal_half_spacing;
  return r.scale_coeff * scale + r.ref_coeff * fabs(ref) + eta;
}
ROPE2D_HD inline double allowance(Tier t, double ref, double scale, double gc) { return allowance(tier_coeffs(t), ref, scale, gc); }

// ulp of a float32 reference (the subnormal spacing below 2^-126).
ROPE2D_HD inline double ulp_of(float r) {
  int e = ilogbf(r == 0.0f ? 0x1p-149f : r);
  if (e < -126) e = -126;
  return ldexp(1.0, e - 23);
}

// Error histogram: bin 0 exact, bin 1 scaled error up to 2^-8, bin k in 2..18 in
// (2^(k-10), 2^(k-9)], 19 beyond 2^9 (Inf and NaN included). ceil(log2 se) from the exponent,
// exactly (no log2, whose last bit differs between libraries).
inline constexpr int error_bin_low = -8, error_bin_high = 9;  // the powers of two between bins
ROPE2D_HD inline int error_bin(double se) {
  if (se == 0) return 0;
  if (!isfinite(se)) return 19;
  const int e = ilogb(se);  // se in [2^e, 2^(e+1))
  const int b = (se == ldexp(1.0, e) ? e : e + 1) + 9;
  return b < 1 ? 1 : b > 19 ? 19 : b;
}

// Largest scaled error by angle binade: bin k holds |t| in [2^(k-1), 2^k), bin 0 below 1.
ROPE2D_HD inline int angle_bin(float t) {
  const float at = fabsf(t);
  if (!isfinite(at) || at < 1) return 0;
  const int b = ilogbf(at) + 1;
  return b < 25 ? b : 25;
}

ROPE2D_HD inline bool subnormal(double x) { return x != 0 && fabs(x) < tiny; }

// The result window. Flush-to-zero returns zero for a result below 2^-126, and an honest
// evaluation can land there although the exact result lies just above (two products that
// cancel): a flushed result is honest wherever the unrounded sum A of the evaluation may be
// below 2^-126. With every other value normal, |A - exact| <= (c u / (1 + u)) S and the
// reference is within u |ref| of exact, so that needs |ref| (1 - u) - c u S <= 2^-126
// (reference/proofs/result_window); where a product, grad or the angle may be subnormal too
// (subnormal_terms), the bound's subnormal term eta is added.
ROPE2D_HD inline double result_window_margin(double ref, double scale, double gc, bool subnormal_terms) {
  constexpr ref::formula::BoundConstants k = bound_constants();
  const double eta = subnormal_terms ? ref::formula::eta(k, fabs(gc)) : 0;
  return ref::formula::result_window_margin(k, fabs(ref), scale, eta);  // <= 0: a flushed result is honest
}
ROPE2D_HD inline bool result_may_be_subnormal(double ref, double scale, double gc, bool subnormal_terms) {
  return ref != 0 && isfinite(ref) && result_window_margin(ref, scale, gc, subnormal_terms) <= 0;
}

// Cheap and conservative: false only when no value of the float32 evaluation can be
// subnormal (see flush.hpp). |sin t| >= min(|t|/2, 2^-40) and |cos t| >= 2^-40 for every
// float32 t (|sin t| >= 0.84|t| below 1; beyond, no float32 comes within 2^-40 of a multiple
// of pi/2: FLOAT32_BOUND.md), so a product can be subnormal only if the grad times that lower
// bound is below 2^-126 (with a factor 2 to spare for the kernel's rounding); the result
// window is taken with |gc| + |gs| >= S (the allowance grows with S).
ROPE2D_HD inline bool may_involve_subnormal(double gc, double gs, float t, float ref) {
  constexpr double floor_sc = 0x1p-40;
  const double at = fabs(static_cast<double>(t));
  const double sin_low = at / 2 < floor_sc ? at / 2 : floor_sc;
  return subnormal(t) || (gc != 0 && fabs(gc) * sin_low < 2 * tiny) || (gs != 0 && fabs(gs) * floor_sc < 2 * tiny) ||
         result_may_be_subnormal(ref, fabs(gc) + fabs(gs), gc, true);
}

// The product of a grad and sin or cos, as the float32 evaluation may see it: subnormal? (the
// double product below the proven window 2^-126 (1 + ~5u): the kernel's own rounding of sin,
// cos and the product, and the double sincos's error; reference/proofs/product_window)
ROPE2D_HD inline bool product_may_be_subnormal(double g, double f) {
  return g != 0 && f != 0 && (subnormal(g) || fabs(g * f) <= product_window);
}

// Exact given s and c (the double sin t and cos t): whether the angle, a grad or a product
// may be subnormal in the float32 evaluation.
ROPE2D_HD inline bool subnormal_terms(double gc, double gs, float t, double s, double c) {
  return subnormal(t) || product_may_be_subnormal(gc, s) || product_may_be_subnormal(gs, c);
}

// Exact given s and c: whether some value of the float32 evaluation may be subnormal, the
// result included, so that a flushed problem exists (flush.hpp).
ROPE2D_HD inline bool involves_subnormal(double gc, double gs, float t, float ref, double s, double c) {
  return subnormal_terms(gc, gs, t, s, c) || result_may_be_subnormal(ref, fabs(gc * s) + fabs(gs * c), gc, false);
}

}  // namespace rope2d::verify::core
