// The proven error bound of a float32 kernel for the backward (derivation: FLOAT32_BOUND.md,
// machine-checked by reference/proofs/), and the flush-to-zero windows derived from it.
//
// Premise: sin and cos within k ulp of their *correctly rounded* values (how NVIDIA states
// sinf/cosf's 2 ulp), results in [-1, 1] (an added premise, measured: FLOAT32_BOUND.md);
// grads widened exactly; -gc*s + gs*c evaluated in float32 (any order, with or without FMA).
// With u = 2^-24 and S = |gc sin t| + |gs cos t|:
//     |out - exact| <= c(k) * u * S + d * |exact| + eta(k, gc)
//     alpha(k) = u + (1 + u)((1 + 2u)^k - 1)          (relative error of s and c)
//     c(k) = (alpha/u)(1 + u)^2 + (1 + u),  d = u,   eta = (k + 1) 2^-149 |gc| + 2^-148
// alpha and c are polynomials in u with integer coefficients; the doubles below are their
// values rounded *up* (never below the proven constant, which Gappa checks).
#pragma once

#include <cstdint>

namespace rope2d::ref {

struct Float32Bound {
  double k_ulp;  // accuracy of the kernel's sin and cos, in ulps from the correctly rounded value
  double alpha;  // the relative error of s and c this implies, from the exact value (rounded up)
  double c;      // rounded up
  double d;
  double eta_grad;  // eta = eta_grad |gc| + eta_abs: the subnormal-range term
  double eta_abs;
  // A product g * f (f = sin t or cos t) may come out of the float32 evaluation below 2^-126
  // only if the double product of g and the double sin or cos (within 2^-50 relative: see
  // certified_enclosure.hpp) is at most this: 2^-126 (1 + w), w = (alpha + 2^-50)(1 + 2 alpha)
  // rounded up (|g s| < 2^-126 and s = f (1 + a), |a| <= alpha; 1/(1 - alpha) <= 1 + 2 alpha).
  double product_window;
};

// The verifier's double sin t and cos t are within this relative error of the exact values
// (certified_enclosure.hpp: CUDA's double sincos within 2.5 ulp, 5 (1 + 2^-53) 2^-53 < 2^-50).
inline constexpr double double_sincos_rel = 0x1p-50;

namespace bound_detail {

inline constexpr double u = 0x1p-24;

// The next double above a positive normal x (constexpr: std::nextafter is not in C++20).
constexpr double next_up(double x) {
  double p = 1;  // the binade of x: p <= x < 2p
  while (p > x) p /= 2;
  while (p * 2 <= x) p *= 2;
  return x + p * 0x1p-52;
}

// sum_j coeff[j] u^j (j < 5, u = 2^-24) rounded up to a double: exact as an integer scaled
// by 2^(24 (n - 1)) (at most 120 bits), then cut to 53 bits and rounded up if any bit is cut.
constexpr double poly_up(const std::int64_t* coeff, int n) {
  unsigned __int128 sum = 0;
  for (int j = 0; j < n; ++j) sum = (sum << 24) + static_cast<unsigned __int128>(coeff[j]);  // Horner in 2^24
  int cut = 0;
  bool inexact = false;
  while ((sum >> 53) != 0) {
    inexact |= (sum & 1) != 0;
    sum >>= 1;
    ++cut;
  }
  if (inexact) ++sum;  // may reach 2^53: still exact in double
  double v = static_cast<double>(static_cast<std::uint64_t>(sum));
  for (int i = 0; i < cut; ++i) v *= 2;
  for (int i = 0; i < 24 * (n - 1); ++i) v /= 2;
  return v;
}

}  // namespace bound_detail

// For integral k from 0 to 2 (the premise counts whole ulps; c has k + 3 terms in u).
constexpr Float32Bound float32_bound(double k_ulp) {
  using namespace bound_detail;
  const int k = static_cast<int>(k_ulp);
  // q(u) = ((1 + 2u)^k - 1)/u = sum_{j>=1} C(k,j) 2^j u^(j-1);  alpha/u = 1 + (1 + u) q
  std::int64_t q[3] = {}, a[4] = {}, c[6] = {};
  std::int64_t binom = 1;
  for (int j = 1; j <= k; ++j) {
    binom = binom * (k - j + 1) / j;
    q[j - 1] = binom * (std::int64_t{1} << j);
  }
  a[0] = 1;
  for (int j = 0; j < 3; ++j) a[j] += q[j], a[j + 1] += q[j];
  // c = (alpha/u)(1 + 2u + u^2) + 1 + u
  for (int j = 0; j < 4; ++j) c[j] += a[j], c[j + 1] += 2 * a[j], c[j + 2] += a[j];
  c[0] += 1;
  c[1] += 1;
  const double alpha = poly_up(a, k + 1) * u;  // exact scaling by a power of two
  const double w = next_up(next_up(alpha + double_sincos_rel) * (1 + 2 * alpha));
  return {k_ulp, alpha, poly_up(c, k + 3), u, (k_ulp + 1) * 0x1p-149, 0x1p-148, 0x1p-126 * next_up(1 + w)};
}

// CUDA's sinf / cosf / sincosf: 2 ulp from the correctly rounded result over the whole range
// (CUDA Math API documentation), so alpha = 5u + 8u^2 + 4u^3 and c = 6 + 19u + 25u^2 + ... .
inline constexpr Float32Bound cuda_sincosf_bound = float32_bound(2.0);

// Half the smallest subnormal spacing: the most a correctly rounded float32 reference is off
// from the exact value below 2^-126 (the verifier's allowance adds it there).
inline constexpr double subnormal_half_spacing = 0x1p-150;

// The largest |out - exact| the bound allows for one element.
double allowed_error(const Float32Bound& b, double scale, double exact, double gc);

}  // namespace rope2d::ref
