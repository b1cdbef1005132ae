// The proven error bound of a float32 kernel for the backward (derivation: FLOAT32_BOUND.md).
//
// A kernel that widens the grads to float32 exactly, takes sin and cos of the float32 angle
// accurate to k ulp, and evaluates -gc*s + gs*c in float32 (any order, with or without FMA)
// satisfies, with u = 2^-24 and S = |gc sin t| + |gs cos t|:
//     |out - exact| <= c(k) * u * S + d * |exact| + eta(k, gc)
//     c(k) = (2k + 1) + (4k + 1) u + 2k u^2,   d = u,
//     eta  = (k + 1) * 2^-149 * |gc| + 2^-148        (only matters in the subnormal range)
#pragma once

namespace rope2d::ref {

struct Float32Bound {
  double k_ulp;  // accuracy of the kernel's sin and cos, in ulps
  double c;
  double d;
};

constexpr Float32Bound float32_bound(double k_ulp) {
  constexpr double u = 0x1p-24;
  return {k_ulp, (2 * k_ulp + 1) + (4 * k_ulp + 1) * u + 2 * k_ulp * u * u, u};
}

// CUDA's sinf / cosf / sincosf: 2 ulp over the whole range (CUDA Math API documentation).
inline constexpr Float32Bound cuda_sincosf_bound = float32_bound(2.0);

// The largest |out - exact| the bound allows for one element.
double allowed_error(const Float32Bound& b, double scale, double exact, double gc);

}  // namespace rope2d::ref
