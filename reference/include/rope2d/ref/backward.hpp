// The exact backward of 2D RoPE for one element, correctly rounded to each output dtype.
//
//     grad_idx_theta = -gc * sin(t) + gs * cos(t)
//
// gc and gs are exact values of their dtype held in doubles; t is a float32 angle. The real
// result is transcendental except in the special cases below, so it is never a rounding
// midpoint and Ziv's strategy (raise the precision until an enclosure rounds one way)
// terminates. Special cases, where the value is exact in double:
//   * any NaN input, or t infinite                  -> NaN
//   * gc or gs infinite                             -> IEEE arithmetic on the two terms (±Inf or NaN)
//   * t = ±0                                        -> -(gc * ±0) + gs, signed zeros as IEEE
//   * gc and gs both zero                           -> the IEEE sum of the two signed zero terms
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include "rope2d/ref/dtype.hpp"

namespace rope2d::ref {

struct Element {
  double gc;
  double gs;
  float t;
};

// The correctly rounded result in each output format (values held exactly in doubles).
struct Rounded {
  double fp32;
  double bf16;
  double fp16;
  double in(Dtype d) const {
    switch (d) {
      case Dtype::fp32: return fp32;
      case Dtype::bf16: return bf16;
      case Dtype::fp16: return fp16;
    }
    return fp32;  // not reached: every output format returns above
  }
};

// True for the special cases above (cheap: the hot paths test it first).
inline bool is_special(const Element& e) {
  const double t = e.t;
  return !(std::isfinite(e.gc) && std::isfinite(e.gs) && std::isfinite(t)) || t == 0.0 ||
         (e.gc == 0.0 && e.gs == 0.0);
}

// The exact value when it is one of the special cases above, else nothing.
std::optional<double> special_value(const Element& e);

// |gc*sin t| + |gs*cos t| to double accuracy (relative error below 2^-50): the condition
// of the sum, and the unit in which the tolerances are stated.
double condition_scale(const Element& e);

// MPFR path (Boost.Multiprecision over MPFR): Ziv's loop from 128 bits, doubling up to
// max_precision_bits. Throws std::runtime_error if it cannot decide (never seen).
Rounded exact_backward(const Element& e);

// The exact value to `digits` significant decimal digits (scientific notation), with the
// precision raised until those digits are certain to within one unit of the last digit.
std::string exact_decimal(const Element& e, int digits = 40);

// Certified double path: glibc's double sincos (at most 1 ulp, by its manual), an error
// bound of 2^-48 * scale (twice the worst case of the arithmetic and of forming the ends),
// and a rounding decision from the two ends of the enclosure; undecided elements go to the
// MPFR path.
struct CertifiedStats {
  long long fast = 0;      // decided in double
  long long fallback = 0;  // handed to MPFR
};
Rounded certified_backward(const Element& e, CertifiedStats* stats = nullptr);

// Only the float32 result (the common case for verification; cheaper than all three).
float certified_backward_fp32(const Element& e, CertifiedStats* stats = nullptr);

inline constexpr int max_precision_bits = 1 << 16;

}  // namespace rope2d::ref
