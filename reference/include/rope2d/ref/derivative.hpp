// Formal checks that the analytic backward is the derivative of the forward
//     L(t) = sum(gc * cos t + gs * sin t)
// by two methods independent of the analytic formula, each with a proven error:
//   * forward-mode automatic differentiation (Eigen's AutoDiffScalar over MPFR numbers);
//   * a fourth-order central difference in MPFR with its truncation and rounding bound.
#pragma once

#include <vector>

#include "rope2d/ref/backward.hpp"

namespace rope2d::ref {

struct DerivativeAgreement {
  double difference;  // max |independent derivative - analytic gradient| (absolute)
  double bound;       // the proven bound on that difference when both are right
  bool holds() const { return difference <= bound; }
};

// Precision of the MPFR evaluations in bits.
inline constexpr int derivative_bits = 256;

DerivativeAgreement autodiff_agreement(const Element& e);
DerivativeAgreement finite_difference_agreement(const Element& e);

// Whole tensors: L is the sum over all elements and AD carries one derivative component per
// element, so each partial derivative comes out of the full sum (cost grows as n^2).
DerivativeAgreement tensor_autodiff_agreement(const std::vector<double>& gc,
                                              const std::vector<double>& gs,
                                              const std::vector<float>& t);

}  // namespace rope2d::ref
