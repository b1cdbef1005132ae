// The certified double-precision enclosure of the exact backward and its float32 rounding
// decision, for the host (glibc's sincos) and the device (CUDA's double sincos): one source.
//
// With u = 2^-53, gc and gs exact doubles, t a float32, and s, c within `k` units of
// relative error u of sin t and cos t (|s - sin t| <= k u |sin t|):
//   a = fl(-gc s):  |a - A| <= k u |A| + u |a|,  A = -gc sin t (the same for b, B = gs cos t),
//   r = fl(a + b):  |r - (a + b)| <= u |a + b| <= u (|a| + |b|),
// so |r - (A + B)| <= ((k + 1)(1 + k u) + 1) u (|a| + |b|) to first order ((k + 2) u), and
// forming the ends r -+ err rounds once more, by at most u (|r| + err) <= u (1 + 2^-48)
// (|a| + |b|). The ends enclose the exact value when
//   err = 2^-48 (|a| + |b|) = 32 u (|a| + |b|)  >=  (k + 3) u (|a| + |b|) (1 + 2^-40).
//  * glibc's sin/cos (host): at most 1 ulp by its manual, relative error k = 2: need 5 u, so
//    the margin is 6.4 times what is needed.
//  * CUDA's double sin/cos/sincos (device): 2 ulp from the correctly rounded result over the
//    whole range (CUDA Math API, "Double-Precision Mathematical Functions"), so at most 2.5
//    ulp from the exact value; ulp(x) <= 2^-52 |x| = 2u |x| (binade edge included: RN(x) can
//    be the power of two above x, |RN(x)| <= (1 + u)|x|), k = 5 (1 + u): need 8 u, so the margin
//    is 4 times what is needed (it would cover 29 u of sin/cos error, 14.5 ulp).
// No product underflows: |gc| >= 2^-149 and |sin t|, |cos t| >= 2^-150 for the nonzero float
// inputs this is used on (t = 0 and zero grads are special cases, settled exactly elsewhere),
// so |a|, |b| >= 2^-299, far inside double's normal range, and ulp bounds are relative.
// reference/tests/enclosure_margin_test.cpp perturbs sin and cos by the documented amount
// in both directions on hard inputs and checks the exact value stays inside.
#pragma once

#include <math.h>

#include "rope2d/ref/hd.hpp"

namespace rope2d::ref {

inline constexpr double certified_margin = 0x1p-48;

struct Enclosure {
  double lo, hi;  // the exact value lies in [lo, hi]
  double a, b;    // the two terms -gc sin t and gs cos t as computed (|a| + |b| is S in double)
};

// From sin t and cos t as computed by the caller's sincos.
ROPE2D_HD inline Enclosure enclose_terms(double gc, double gs, double s, double c) {
  const double a = -(gc * s);
  const double b = gs * c;
  const double r = a + b;
  const double err = certified_margin * (fabs(a) + fabs(b));
  return {r - err, r + err, a, b};
}

// One argument reduction for both: glibc's sincos on the host, CUDA's on the device.
ROPE2D_HD inline Enclosure enclose(double gc, double gs, float t) {
  double s, c;
  sincos(static_cast<double>(t), &s, &c);
  return enclose_terms(gc, gs, s, c);
}

// The float32 rounding decision: conversion to float rounds to nearest even, so the exact
// value rounds to *out when both ends round to the same float (the same bits: equal and of
// the same sign; the ends are never NaN for finite inputs). False: undecided, for MPFR.
ROPE2D_HD inline bool decide_fp32(const Enclosure& x, float* out) {
  const float lo = static_cast<float>(x.lo), hi = static_cast<float>(x.hi);
  if (!(lo == hi) || signbit(lo) != signbit(hi)) return false;
  *out = lo;
  return true;
}

}  // namespace rope2d::ref
