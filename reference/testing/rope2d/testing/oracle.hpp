// An independent oracle for tests: the backward at 1024 bits through MPFR's C API directly
// (not Boost, not Ziv), rounded to a format by MPFR's own rint. At 1024 bits a wrong rounding
// would need the exact value within 2^-1000 of a midpoint, which no input here comes near.
#pragma once

#include <mpfr.h>

#include <cmath>

#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/dtype.hpp"

namespace rope2d::test {

class Oracle {
 public:
  Oracle() { mpfr_inits2(1024, t_, s_, c_, a_, b_, r_, q_, (mpfr_ptr)nullptr); }
  ~Oracle() { mpfr_clears(t_, s_, c_, a_, b_, r_, q_, (mpfr_ptr)nullptr); }
  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;

  // Correctly rounded result in format d, for finite inputs whose result is nonzero.
  double rounded(const ref::Element& e, ref::Dtype d) {
    value(e);
    if (mpfr_zero_p(r_)) return 0.0;
    const ref::Format f = ref::format_of(d);
    const long exp = std::max<long>(mpfr_get_exp(r_) - 1, f.emin);  // |r| in [2^(exp-1), 2^exp)
    const long q = exp - (f.precision - 1);
    mpfr_mul_2si(q_, r_, -q, MPFR_RNDN);
    mpfr_rint(q_, q_, MPFR_RNDN);
    const double out = std::ldexp(mpfr_get_d(q_, MPFR_RNDN), static_cast<int>(q));
    const double max = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
    return std::fabs(out) > max ? std::copysign(INFINITY, out) : out;
  }

  // The value itself to double precision (for error measurements).
  double value_d(const ref::Element& e) {
    value(e);
    return mpfr_get_d(r_, MPFR_RNDN);
  }

  // err = candidate - exact, to double precision.
  double error(const ref::Element& e, double candidate) {
    value(e);
    mpfr_set_d(q_, candidate, MPFR_RNDN);
    mpfr_sub(q_, q_, r_, MPFR_RNDN);
    return mpfr_get_d(q_, MPFR_RNDN);
  }

 private:
  void value(const ref::Element& e) {
    mpfr_set_flt(t_, e.t, MPFR_RNDN);
    mpfr_sin_cos(s_, c_, t_, MPFR_RNDN);
    mpfr_mul_d(a_, s_, -e.gc, MPFR_RNDN);
    mpfr_mul_d(b_, c_, e.gs, MPFR_RNDN);
    mpfr_add(r_, a_, b_, MPFR_RNDN);
  }
  mpfr_t t_, s_, c_, a_, b_, r_, q_;
};

}  // namespace rope2d::test
