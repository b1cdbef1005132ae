// Counter-based inputs: element i's values are a pure function of (seed, i), computed by the
// same source on the CPU and on the GPU with the same bits. The generator is Philox4x32-10
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011); the normal values
// come from its words through an inverse normal CDF built from IEEE basic operations only
// (+, -, *, /, sqrt, each rounded once to nearest: no library log/sin/cos, whose results
// differ between glibc and CUDA, and no contraction into FMA: the device side spells every
// operation with its _rn intrinsic, the host side is compiled with -ffp-contract=off), and the
// rounding into a grad format is integer arithmetic. Header only, C++17, so that nvcc
// compiles it into the testbed's kernels and the host compiles the same text into the
// problem generator; counter_random_test checks the host side, counter_gpu_test the device
// side against it.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/ref/hd.hpp"

namespace rope2d::ref::counter {

// ---- IEEE basic operations, rounded to nearest even, one rounding each: on the device the _rn
// intrinsic (never contracted into an FMA), on the host the operator (-ffp-contract=off).
#if defined(__CUDA_ARCH__)
#define ROPE2D_RN(device, host) device
#else
#define ROPE2D_RN(device, host) host
#endif
ROPE2D_HD inline double add(double a, double b) { return ROPE2D_RN(__dadd_rn(a, b), a + b); }
ROPE2D_HD inline double sub(double a, double b) { return ROPE2D_RN(__dsub_rn(a, b), a - b); }
ROPE2D_HD inline double mul(double a, double b) { return ROPE2D_RN(__dmul_rn(a, b), a * b); }
ROPE2D_HD inline double div(double a, double b) { return ROPE2D_RN(__ddiv_rn(a, b), a / b); }
// IEEE 754 requires a correctly rounded square root of std::sqrt too.
ROPE2D_HD inline double sqrt_rn(double a) { return ROPE2D_RN(__dsqrt_rn(a), std::sqrt(a)); }
ROPE2D_HD inline float mulf(float a, float b) { return ROPE2D_RN(__fmul_rn(a, b), a * b); }
#undef ROPE2D_RN

ROPE2D_HD inline std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
ROPE2D_HD inline double double_of(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
ROPE2D_HD inline float float_of(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// ---- Philox4x32-10.
struct Block {
  std::uint32_t x[4];
};

ROPE2D_HD inline Block philox4x32_10(Block c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u, w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(m0) * c.x[0], p1 = static_cast<std::uint64_t>(m1) * c.x[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c = Block{{hi1 ^ c.x[1] ^ k0, lo1, hi0 ^ c.x[3] ^ k1, lo0}};
    k0 += w0;
    k1 += w1;
  }
  return c;
}

// Uniform in (0, 1): (2k + 1) 2^-53 for the 52 high bits k of hi:lo. Never 0 or 1, and
// symmetric about 1/2 (u and 1 - u are equally likely; 1 - u is exact for u >= 1/2).
ROPE2D_HD inline double uniform_open(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t k = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 12;
  return static_cast<double>(2 * k + 1) * 0x1p-53;  // 2k + 1 < 2^53: exact
}

// Natural log of a positive normal double, from basic operations: x = m 2^e with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its odd
// series to s^25 (the next term is below 2^-60 of the sum). Error a few ulps; what matters
// here is that it is the same function on both sides.
ROPE2D_HD inline double log_basic(double x) {
  const std::uint64_t b = bits_of(x);
  int e = static_cast<int>((b >> 52) & 0x7ff) - 1023;
  double m = double_of((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > 1.4142135623730951) {
    m = mul(m, 0.5);  // exact
    ++e;
  }
  const double s = div(sub(m, 1.0), add(m, 1.0));  // m - 1 exact (Sterbenz)
  const double s2 = mul(s, s);
  double p = div(1.0, 25.0);
  for (int k = 23; k >= 1; k -= 2) p = add(mul(p, s2), div(1.0, k));
  const double log_m = mul(mul(2.0, s), p);
  constexpr double ln2_hi = 0x1.62e42fefa3800p-1, ln2_lo = 0x1.ef35793c76730p-45;  // ln2_hi * e exact for |e| < 2^11
  return add(add(mul(static_cast<double>(e), ln2_hi), log_m), mul(static_cast<double>(e), ln2_lo));
}

// The standard normal quantile of u in (0, 1): Acklam's rational approximation (relative
// error below 1.15e-9, far below the float32 rounding every value gets afterwards), each
// operation a basic one.
ROPE2D_HD inline double normal_quantile(double u) {
  constexpr double a0 = -3.969683028665376e+01, a1 = 2.209460984245205e+02, a2 = -2.759285104469687e+02,
                   a3 = 1.383577518672690e+02, a4 = -3.066479806614716e+01, a5 = 2.506628277459239e+00;
  constexpr double b0 = -5.447609879822406e+01, b1 = 1.615858368580409e+02, b2 = -1.556989798598866e+02,
                   b3 = 6.680131188771972e+01, b4 = -1.328068155288572e+01;
  constexpr double c0 = -7.784894002430293e-03, c1 = -3.223964580411365e-01, c2 = -2.400758277161838e+00,
                   c3 = -2.549732539343734e+00, c4 = 4.374664141464968e+00, c5 = 2.938163982698783e+00;
  constexpr double d0 = 7.784695709041462e-03, d1 = 3.224671290700398e-01, d2 = 2.445134137142996e+00,
                   d3 = 3.754408661907416e+00;
  constexpr double low = 0.02425;
  auto tail = [&](double p) {  // p in (0, low]: the lower tail's value
    const double q = sqrt_rn(mul(-2.0, log_basic(p)));
    const double num = add(mul(add(mul(add(mul(add(mul(add(mul(c0, q), c1), q), c2), q), c3), q), c4), q), c5);
    const double den = add(mul(add(mul(add(mul(add(mul(d0, q), d1), q), d2), q), d3), q), 1.0);
    return div(num, den);
  };
  if (u < low) return tail(u);
  if (u > 1.0 - low) return -tail(sub(1.0, u));  // 1 - u exact here
  const double q = sub(u, 0.5), r = mul(q, q);    // u - 1/2 exact
  const double num = mul(add(mul(add(mul(add(mul(add(mul(add(mul(a0, r), a1), r), a2), r), a3), r), a4), r), a5), q);
  const double den = add(mul(add(mul(add(mul(add(mul(add(mul(b0, r), b1), r), b2), r), b3), r), b4), r), 1.0);
  return div(num, den);
}

// ---- Rounding into a storage format, in integers.

// A binary format and its storage: `precision` significand bits (hidden bit included), normal
// exponents [emin, emax], `width` bits of storage (16 or 32; IEEE layout: sign, exponent,
// fraction). bf16 {8, -126, 127, 16}, fp16 {11, -14, 15, 16}, fp32 {24, -126, 127, 32}.
struct Encoding {
  int precision, emin, emax, width;
};

// The storage bits of finite x rounded to nearest (ties to even) in f, with gradual underflow
// and overflow to infinity; x must be zero or a normal double (every value drawn here is).
ROPE2D_HD inline std::uint32_t round_encode(double x, Encoding f) {
  const std::uint64_t b = bits_of(x);
  const std::uint32_t sign = static_cast<std::uint32_t>(b >> 63) << (f.width - 1);
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  if (biased == 0) return sign;  // zero
  const int ex = biased - 1023;
  const std::uint64_t m = (b & 0x000FFFFFFFFFFFFFull) | 0x0010000000000000ull;  // 53 bits, x = m 2^(ex - 52)
  int e = ex < f.emin ? f.emin : ex;                                          // quantum 2^(e - p + 1)
  const int shift = 52 - (f.precision - 1) + (e - ex);
  std::uint64_t r = 0;
  if (shift < 64) {
    const std::uint64_t half = std::uint64_t{1} << (shift - 1), rest = m & ((half << 1) - 1);
    r = m >> shift;
    if (rest > half || (rest == half && (r & 1))) ++r;
  }
  const std::uint64_t hidden = std::uint64_t{1} << (f.precision - 1);
  if (r == 2 * hidden) {  // carried into the next binade
    r = hidden;
    ++e;
  }
  const int exp_bits = f.width - f.precision;
  if (e > f.emax) return sign | (((std::uint32_t{1} << exp_bits) - 1) << (f.precision - 1));  // infinity
  if (r < hidden) return sign | static_cast<std::uint32_t>(r);                                 // subnormal (or zero)
  return sign | (static_cast<std::uint32_t>(e - f.emin + 1) << (f.precision - 1)) | static_cast<std::uint32_t>(r - hidden);
}

inline constexpr Encoding float32_encoding{24, -126, 127, 32};

// The encoding of a grad dtype (host side; kernels get it as an argument).
inline Encoding encoding_of(Dtype d) {
  const Format f = format_of(d);
  return {f.precision, f.emin, f.emax, 8 * size_bytes(d)};
}

// ---- The elements of the counter-based sets. Key: the set's seed (its round included);
// counter: (i low, i high, stream, 0). Stream 0 gives the two grads, stream 1 the angle.

// The grads of element i: N(0, 1), rounded to the grad format, as storage bits.
ROPE2D_HD inline void normal_grads(std::uint64_t seed, std::uint64_t i, Encoding f, std::uint32_t& gc, std::uint32_t& gs) {
  const Block w = philox4x32_10(Block{{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), 0u, 0u}},
                                static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  gc = round_encode(normal_quantile(uniform_open(w.x[0], w.x[1])), f);
  gs = round_encode(normal_quantile(uniform_open(w.x[2], w.x[3])), f);
}

// The randn angle of element i: N(0, 1) rounded to float32.
ROPE2D_HD inline float normal_angle(std::uint64_t seed, std::uint64_t i) {
  const Block w = philox4x32_10(Block{{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), 1u, 0u}},
                                static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  return float_of(round_encode(normal_quantile(uniform_open(w.x[0], w.x[1])), float32_encoding));
}

// The layout angle of element i: fl32(p * theta[k]), p the token's y (even k) or x (odd k),
// k = (i mod head_dim) mod (head_dim / 2), as build_2d_rope forms it. positions: (y, x) per token.
ROPE2D_HD inline float layout_angle(const std::int32_t* positions, const float* theta, std::int64_t i, std::int64_t head_dim) {
  const std::int64_t token = i / head_dim, k = (i % head_dim) % (head_dim / 2);
  const float pos = static_cast<float>(positions[2 * token + (k % 2 == 0 ? 0 : 1)]);  // exact: |pos| < 2^24
  return mulf(pos, theta[k]);
}

}  // namespace rope2d::ref::counter
