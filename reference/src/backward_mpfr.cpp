// The MPFR path of the exact backward: Ziv's strategy over Boost.Multiprecision's mpfr_float.
//
// Error of one evaluation at precision p (each MPFR operation correctly rounded, so within
// 2^-p relative): sin and cos err by 2^-p, each product adds 2^-p, the sum adds 2^-p of
// |a| + |b|. Hence |r - exact| <= 3 * 2^-p * (|a| + |b|) * (1 + 2^(2-p)) < 2^(2-p) * (|a| + |b|),
// with a = -gc*S, b = gs*C as computed. When both ends of the enclosure [r - err, r + err]
// round to the same value of a format, so does the exact result (rounding is monotonic).
#include <bit>
#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "rope2d/ref/backward.hpp"

namespace rope2d::ref {

namespace mp = boost::multiprecision;
using Real = mp::mpfr_float;

namespace {

// Boost 1.74 keeps one process-wide default precision (in decimal digits); every number
// made inside a scope takes it. The mutex makes the MPFR path safe to call from threads.
std::mutex mpfr_mutex;

class PrecisionScope {
 public:
  explicit PrecisionScope(int bits) : saved_(Real::default_precision()) {
    Real::default_precision(static_cast<unsigned>(bits * 0.30103) + 2);
  }
  ~PrecisionScope() { Real::default_precision(saved_); }
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  unsigned saved_;
};

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

struct Evaluation {
  Real r;
  Real err;
};

Evaluation evaluate(const Element& e) {
  const Real t = static_cast<double>(e.t);
  const Real a = -Real(e.gc) * sin(t);
  const Real b = Real(e.gs) * cos(t);
  Real r = a + b;
  const long prec = mpfr_get_prec(r.backend().data());
  Real err = (abs(a) + abs(b)) * mp::ldexp(Real(1), static_cast<int>(2 - prec));
  return {std::move(r), std::move(err)};
}

// x rounded to the nearest value of format d, ties to even, decided in MPFR itself: a double
// enclosure could not separate values within 2^-53 of a rounding midpoint (a result just
// below a gs that is a bf16 midpoint, say). Same algorithm as round_to in dtype.cpp.
double round_mpfr(const Real& x, Dtype d) {
  const mpfr_srcptr v = x.backend().data();
  if (mpfr_zero_p(v)) return mpfr_signbit(v) ? -0.0 : 0.0;
  const Format f = format_of(d);
  const long e = std::max<long>(mpfr_get_exp(v) - 1, f.emin);  // |x| in [2^(exp-1), 2^exp)
  const long q = e - (f.precision - 1);
  Real scaled = x;
  mpfr_mul_2si(scaled.backend().data(), v, -q, MPFR_RNDN);  // exact: a power of two
  mpfr_rint(scaled.backend().data(), scaled.backend().data(), MPFR_RNDN);
  double r = std::ldexp(mpfr_get_d(scaled.backend().data(), MPFR_RNDN), static_cast<int>(q));
  if (r == 0.0) r = mpfr_signbit(v) ? -0.0 : 0.0;
  return round_to(d, r);  // exact for in-range values; maps overflow to infinity
}

// The ends of [r - err, r + err], rounded outward.
void enclosure(const Evaluation& v, Real& lo, Real& hi) {
  lo = v.r;
  hi = v.r;
  mpfr_sub(lo.backend().data(), v.r.backend().data(), v.err.backend().data(), MPFR_RNDD);
  mpfr_add(hi.backend().data(), v.r.backend().data(), v.err.backend().data(), MPFR_RNDU);
}

}  // namespace

std::optional<double> special_value(const Element& e) {
  const double t = e.t;
  if (std::isnan(e.gc) || std::isnan(e.gs) || std::isnan(t) || std::isinf(t))
    return std::numeric_limits<double>::quiet_NaN();
  // With an infinite grad only the signs of sin and cos matter (neither vanishes at a
  // nonzero float), and double arithmetic gives IEEE's answer. For t = ±0, sin t = t and
  // cos t = 1 exactly. With both grads zero the terms are signed zeros: IEEE's sum is +0
  // unless both are -0.
  if (is_special(e)) {
    const double s = t == 0.0 ? t : std::sin(t);
    const double c = t == 0.0 ? 1.0 : std::cos(t);
    return -(e.gc * s) + e.gs * c;
  }
  return std::nullopt;
}

Rounded exact_backward(const Element& e) {
  if (auto v = special_value(e))
    return {round_to(Dtype::fp32, *v), round_to(Dtype::bf16, *v), round_to(Dtype::fp16, *v)};
  std::lock_guard lock(mpfr_mutex);
  for (int bits = 128; bits <= max_precision_bits; bits *= 2) {
    PrecisionScope scope(bits);
    Real lo, hi;
    enclosure(evaluate(e), lo, hi);
    Rounded lo_r{round_mpfr(lo, Dtype::fp32), round_mpfr(lo, Dtype::bf16), round_mpfr(lo, Dtype::fp16)};
    Rounded hi_r{round_mpfr(hi, Dtype::fp32), round_mpfr(hi, Dtype::bf16), round_mpfr(hi, Dtype::fp16)};
    if (same_bits(lo_r.fp32, hi_r.fp32) && same_bits(lo_r.bf16, hi_r.bf16) &&
        same_bits(lo_r.fp16, hi_r.fp16))
      return lo_r;
  }
  throw std::runtime_error("exact_backward: undecided at the maximum precision");
}

std::string exact_decimal(const Element& e, int digits) {
  if (auto v = special_value(e)) {
    std::ostringstream os;
    os.precision(digits - 1);
    os << std::scientific << *v;
    return os.str();
  }
  std::lock_guard lock(mpfr_mutex);
  // Enough bits that err is far below one unit of the last printed digit.
  for (int bits = 256; bits <= max_precision_bits; bits *= 2) {
    PrecisionScope scope(bits);
    const Evaluation v = evaluate(e);
    if (v.err * mp::pow(Real(10), digits + 5) <= abs(v.r))
      return v.r.str(digits - 1, std::ios_base::scientific);  // digits after the point
  }
  throw std::runtime_error("exact_decimal: cancellation beyond the maximum precision");
}

double condition_scale(const Element& e) {
  const double t = e.t;
  return std::fabs(e.gc * std::sin(t)) + std::fabs(e.gs * std::cos(t));
}

}  // namespace rope2d::ref
