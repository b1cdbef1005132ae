// Derivative checks of the analytic backward: Eigen AutoDiff and a bounded finite difference,
// both over MPFR numbers at derivative_bits.
//
// Error bounds, with p = derivative_bits and S = |gc sin t| + |gs cos t|:
//   * the analytic gradient at precision p is within 2^(2-p) S of the exact value (see
//     backward_mpfr.cpp); AD applies the chain rule with the same count of correctly
//     rounded operations, so the two differ by at most 2^(3-p) S.
//   * the central difference D_h = [8(f(t+h) - f(t-h)) - (f(t+2h) - f(t-2h))] / 12h has
//     truncation error h^4/30 max|f^(5)| <= h^4/30 (|gc| + |gs|); each f value errs by at most
//     2^(2-p)(|gc| + |gs|) (t +- h is exact at this precision), which D_h amplifies by 18/12h,
//     and the subtractions and the division add less than 2^(1-p) |D_h|.
#include "rope2d/ref/derivative.hpp"

#include <boost/multiprecision/eigen.hpp>
#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <stdexcept>
#include <unsupported/Eigen/AutoDiff>

namespace rope2d::ref {

namespace mp = boost::multiprecision;
using Real = mp::number<mp::mpfr_float_backend<derivative_bits * 30103 / 100000 + 2>, mp::et_off>;

namespace {

Real analytic(const Element& e) {
  const Real t = static_cast<double>(e.t);
  return -Real(e.gc) * sin(t) + Real(e.gs) * cos(t);
}

Real forward(double gc, double gs, const Real& t) { return Real(gc) * cos(t) + Real(gs) * sin(t); }

double scale_bound(const Element& e) { return std::ldexp(condition_scale(e) * (1 + 0x1p-40), 3 - derivative_bits); }

void require_finite(const Element& e) {
  if (!std::isfinite(e.gc) || !std::isfinite(e.gs) || !std::isfinite(e.t))
    throw std::invalid_argument("derivative checks take finite inputs");
}

}  // namespace

DerivativeAgreement autodiff_agreement(const Element& e) {
  require_finite(e);
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<Real, 1, 1>>;
  const AD t(Real(static_cast<double>(e.t)), 1, 0);
  const AD L = AD(Real(e.gc)) * cos(t) + AD(Real(e.gs)) * sin(t);
  const Real diff = abs(L.derivatives()(0) - analytic(e));
  return {diff.convert_to<double>(), scale_bound(e)};
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
  const Real diff = abs(d - analytic(e));
  const double bound = (trunc + rounding + scale_bound(e) + std::ldexp(m, 1 - derivative_bits)) * (1 + 0x1p-20);
  return {diff.convert_to<double>(), bound};
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
    const double diff = abs(L.derivatives()(i) - analytic(e)).convert_to<double>();
    const double bound = scale_bound(e);
    // Report the element closest to failing: the largest difference relative to its bound.
    if (worst.bound == 0.0 || diff * worst.bound > worst.difference * bound) worst = {diff, bound};
  }
  return worst;
}

}  // namespace rope2d::ref
