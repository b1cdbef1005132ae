// The proven error bound of a float32 kernel for the backward (derivation: FLOAT32_BOUND.md).
//
// Premise: sin and cos within k ulp of their *correctly rounded* values (how NVIDIA states
// sinf/cosf's 2 ulp), results in [-1, 1]; grads widened exactly; -gc*s + gs*c evaluated in
// float32 (any order, with or without FMA). With u = 2^-24 and S = |gc sin t| + |gs cos t|:
//     |out - exact| <= c(k) * u * S + d * |exact| + eta(k, gc)
//     alpha(k) = u + (1 + u)((1 + 2u)^k - 1)          (relative error of s and c)
//     c(k) = (alpha/u)(1 + u)^2 + (1 + u),  d = u,   eta = (k + 1) 2^-149 |gc| + 2^-148
#pragma once

namespace rope2d::ref {

struct Float32Bound {
  double k_ulp;  // accuracy of the kernel's sin and cos, in ulps from the correctly rounded value
  double alpha;  // the relative error of s and c this implies, from the exact value
  double c;
  double d;
};

constexpr Float32Bound float32_bound(double k_ulp) {
  constexpr double u = 0x1p-24;
  double grow = 1;  // (1 + 2u)^k for integral k (the premise counts whole ulps)
  for (int i = 0; i < static_cast<int>(k_ulp); ++i) grow *= 1 + 2 * u;
  const double alpha = u + (1 + u) * (grow - 1);
  return {k_ulp, alpha, (alpha / u) * (1 + u) * (1 + u) + (1 + u), u};
}

// CUDA's sinf / cosf / sincosf: 2 ulp from the correctly rounded result over the whole range
// (CUDA Math API documentation), so alpha = 5u + 8u^2 + 4u^3 and c = 6 + 19u + 25u^2 + ... .
inline constexpr Float32Bound cuda_sincosf_bound = float32_bound(2.0);

// The largest |out - exact| the bound allows for one element.
double allowed_error(const Float32Bound& b, double scale, double exact, double gc);

}  // namespace rope2d::ref
