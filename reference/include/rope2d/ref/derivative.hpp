// Formal checks that the shipped reference (exact_backward, the MPFR path, and
// certified_backward, the double path) returns the derivative of the forward
//     L(t) = sum(gc * cos t + gs * sin t)
// correctly rounded, by two methods independent of the backward formula, each with a proven
// error: forward-mode automatic differentiation (Eigen's AutoDiffScalar over MPFR numbers),
// and a fourth-order central difference in MPFR with its truncation and rounding bound. Each
// gives an enclosure [D - b, D + b] of the true derivative; every rounded result of both
// paths must be the rounding of a value in it.
#pragma once

#include <vector>

#include "rope2d/ref/backward.hpp"

namespace rope2d::ref {

struct DerivativeAgreement {
  double difference;  // max over formats and paths: distance from D to the set of values that round to the result
  double bound;       // b: the proven radius of the derivative's enclosure
  bool paths_agree = true;  // exact_backward and certified_backward bit for bit
  bool holds() const { return paths_agree && difference <= bound; }
};

// The agreement of one reference result with a derivative value d known to radius b (d is
// the enclosure's centre in double; the caller adds the conversion to b).
DerivativeAgreement agreement_with(const Rounded& reference, double d, double b);

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
