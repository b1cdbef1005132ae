// The certified double path of the exact backward.
//
// In double (u = 2^-53), with sin and cos within 1 ulp (glibc's manual: at most 1 ulp on
// x86-64 for sin/cos over the whole range, so relative error <= 2u) and gc, gs exact:
//   |a - (-gc sin t)| <= 2u|gc sin t| + u|a|,   the same for b = gs cos t,
//   |r - (a + b)|     <= u|a + b|,
// so |r - exact| <= 4u (|a| + |b|) (1 + 4u) < 2^-50 (|a| + |b|). Computing the ends r -+ err
// rounds once more, by at most 2^-53 (|r| + err) < 2^-52 (|a| + |b|). We use err = 2^-48 (|a| +
// |b|), which covers both twice over. No product underflows: |gc| >= 2^-149 and |sin t| >=
// 2^-150 for nonzero float inputs, so |a| >= 2^-299, far inside double's normal range.
// The MPFR path settles the elements this enclosure cannot; tests compare both bit for bit.
#include <bit>
#include <cmath>

#include "rope2d/ref/backward.hpp"

namespace rope2d::ref {

namespace {

struct Enclosure {
  double lo, hi;
};

inline Enclosure enclose(const Element& e) {
  double s, c;
  ::sincos(static_cast<double>(e.t), &s, &c);  // one argument reduction for both
  const double a = -(e.gc * s);
  const double b = e.gs * c;
  const double r = a + b;
  const double err = 0x1p-48 * (std::fabs(a) + std::fabs(b));
  return {r - err, r + err};
}

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

inline void count(CertifiedStats* stats, bool fast) {
  if (stats) ++(fast ? stats->fast : stats->fallback);
}

}  // namespace

Rounded certified_backward(const Element& e, CertifiedStats* stats) {
  if (is_special(e)) {
    const double v = *special_value(e);
    count(stats, true);
    return {round_to(Dtype::fp32, v), round_to(Dtype::bf16, v), round_to(Dtype::fp16, v)};
  }
  const Enclosure x = enclose(e);
  Rounded lo{round_to(Dtype::fp32, x.lo), round_to(Dtype::bf16, x.lo), round_to(Dtype::fp16, x.lo)};
  Rounded hi{round_to(Dtype::fp32, x.hi), round_to(Dtype::bf16, x.hi), round_to(Dtype::fp16, x.hi)};
  const bool decided = same_bits(lo.fp32, hi.fp32) && same_bits(lo.bf16, hi.bf16) &&
                       same_bits(lo.fp16, hi.fp16);
  count(stats, decided);
  return decided ? lo : exact_backward(e);
}

float certified_backward_fp32(const Element& e, CertifiedStats* stats) {
  if (is_special(e)) {
    count(stats, true);
    return static_cast<float>(*special_value(e));
  }
  // Conversion to float rounds to nearest even, so the two ends compare as floats directly.
  const Enclosure x = enclose(e);
  const float lo = static_cast<float>(x.lo), hi = static_cast<float>(x.hi);
  const bool decided = std::bit_cast<std::uint32_t>(lo) == std::bit_cast<std::uint32_t>(hi);
  count(stats, decided);
  return decided ? lo : static_cast<float>(exact_backward(e).fp32);
}

}  // namespace rope2d::ref
