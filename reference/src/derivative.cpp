// Derivative checks of the analytic backward: Eigen AutoDiff and a bounded finite difference,
// both over MPFR numbers at derivative_bits.
//
// Error bounds, with p = derivative_bits and S = |gc sin t| + |gs cos t|:
//   * AD applies the chain rule with a few correctly rounded operations (sin, cos, two
//     products, a sum: relative 2^-p each), so it is within 2^(2-p) S of the exact value
//     (the count of backward_mpfr.cpp); we use 2^(3-p) S.
//   * the central difference D_h = [8(f(t+h) - f(t-h)) - (f(t+2h) - f(t-2h))] / 12h has
//     truncation error h^4/30 max|f^(5)| <= h^4/30 (|gc| + |gs|); each f value errs by at most
//     2^(2-p)(|gc| + |gs|) (t +- h is exact at this precision), which D_h amplifies by 18/12h,
//     and the subtractions and the division add less than 2^(1-p) |D_h|.
#include "rope2d/ref/derivative.hpp"

#include <algorithm>
#include <bit>
#include <boost/multiprecision/eigen.hpp>
#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <stdexcept>
#include <unsupported/Eigen/AutoDiff>

namespace rope2d::ref {

namespace mp = boost::multiprecision;
using Real = mp::number<mp::mpfr_float_backend<derivative_bits * 30103 / 100000 + 2>, mp::et_off>;

namespace {

Real forward(double gc, double gs, const Real& t) { return Real(gc) * cos(t) + Real(gs) * sin(t); }

double scale_bound(const Element& e) { return std::ldexp(condition_scale(e) * (1 + 0x1p-40), 3 - derivative_bits); }

void require_finite(const Element& e) {
  if (!std::isfinite(e.gc) || !std::isfinite(e.gs) || !std::isfinite(e.t))
    throw std::invalid_argument("derivative checks take finite inputs");
}

// The set of reals that round to r in format d (nearest even; ties ignored, the enclosure
// radius is never zero): r minus half the spacing toward zero (a quarter ulp below a power of
// two), plus half the spacing away from zero. Distance of x from that set.
double distance_to_cell(double r, Dtype d, double x) {
  const Format f = format_of(d);
  if (std::isinf(r)) {  // everything from the midpoint above the largest finite value rounds to it
    const double threshold = std::ldexp(2.0 - std::ldexp(1.0, -f.precision), f.emax);
    return std::signbit(r) != std::signbit(x) ? INFINITY : std::max(0.0, threshold - std::fabs(x));
  }
  const int e = r == 0 ? f.emin : std::max(std::ilogb(r), f.emin);
  const double half = std::ldexp(1.0, e - f.precision);  // half an ulp
  const bool power_of_two = r != 0 && std::fabs(r) == std::ldexp(1.0, e) && std::ilogb(r) > f.emin;
  const double toward_zero = power_of_two ? half / 2 : half;
  const double lo = r > 0 ? r - toward_zero : r - half, hi = r < 0 ? r + toward_zero : r + half;
  return std::max({0.0, lo - x, x - hi});
}

// D to double with the conversion's error added to the radius.
DerivativeAgreement check_paths(const Element& e, const Real& derivative, double b) {
  const double d = derivative.convert_to<double>();
  const double radius = b + std::ldexp(std::fabs(d), -52);
  const Rounded mpfr = exact_backward(e), cert = certified_backward(e);
  DerivativeAgreement a = agreement_with(mpfr, d, radius);  // a.bound = radius: the conversion included
  const DerivativeAgreement c = agreement_with(cert, d, radius);
  a.difference = std::max(a.difference, c.difference);
  a.paths_agree = std::bit_cast<std::uint64_t>(mpfr.fp32) == std::bit_cast<std::uint64_t>(cert.fp32) &&
                  std::bit_cast<std::uint64_t>(mpfr.bf16) == std::bit_cast<std::uint64_t>(cert.bf16) &&
                  std::bit_cast<std::uint64_t>(mpfr.fp16) == std::bit_cast<std::uint64_t>(cert.fp16);
  return a;
}

}  // namespace

DerivativeAgreement agreement_with(const Rounded& r, double d, double b) {
  double diff = 0;
  for (Dtype f : output_formats) {
    const double v = r.in(f);
    diff = std::max(diff, std::isnan(v) ? INFINITY : distance_to_cell(v, f, d));
  }
  return {diff, b, true};
}

DerivativeAgreement autodiff_agreement(const Element& e) {
  require_finite(e);
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<Real, 1, 1>>;
  const AD t(Real(static_cast<double>(e.t)), 1, 0);
  const AD L = AD(Real(e.gc)) * cos(t) + AD(Real(e.gs)) * sin(t);
  return check_paths(e, L.derivatives()(0), scale_bound(e));
}

DerivativeAgreement finite_difference_agreement(const Element& e) {
  require_finite(e);
  const Real h = mp::ldexp(Real(1), -40);
  const Real t = static_cast<double>(e.t);
  const Real d = (8 * (forward(e.gc, e.gs, t + h) - forward(e.gc, e.gs, t - h)) -
                  (forward(e.gc, e.gs, t + 2 * h) - forward(e.gc, e.gs, t - 2 * h))) /
                 (12 * h);
  const double m = std::fabs(e.gc) + std::fabs(e.gs);
  const double trunc = std::ldexp(m, -160) / 30;
  const double rounding = 1.5 * std::ldexp(m, 2 - derivative_bits + 40) * 2;
  const double bound = (trunc + rounding + std::ldexp(m, 1 - derivative_bits)) * (1 + 0x1p-20);
  return check_paths(e, d, bound);
}

DerivativeAgreement tensor_autodiff_agreement(const std::vector<double>& gc,
                                              const std::vector<double>& gs,
                                              const std::vector<float>& t) {
  const auto n = static_cast<Eigen::Index>(t.size());
  if (gc.size() != t.size() || gs.size() != t.size())
    throw std::invalid_argument("tensor_autodiff_agreement: sizes differ");
  using Vec = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
  using AD = Eigen::AutoDiffScalar<Vec>;
  AD L(Real(0), Vec::Zero(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    require_finite({gc[i], gs[i], t[i]});
    const AD ti(Real(static_cast<double>(t[i])), n, i);
    L += AD(Real(gc[i])) * cos(ti) + AD(Real(gs[i])) * sin(ti);
  }
  DerivativeAgreement worst{0.0, 0.0};
  for (Eigen::Index i = 0; i < n; ++i) {
    const Element e{gc[i], gs[i], t[i]};
    const DerivativeAgreement a = check_paths(e, L.derivatives()(i), scale_bound(e));
    // Report the element closest to failing: the largest difference relative to its bound.
    if (!a.paths_agree || worst.bound == 0.0 || a.difference * worst.bound > worst.difference * a.bound) {
      if (worst.paths_agree) worst = a;
    }
  }
  return worst;
}

}  // namespace rope2d::ref
