// Exact rounding of doubles into bf16 / fp16 / fp32 and the 16-bit storage encodings.
#include "rope2d/ref/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rope2d/ref/words.hpp"

namespace rope2d::ref {

std::optional<Dtype> parse_dtype(std::string_view s) {
  if (s.empty()) return std::nullopt;
  for (Dtype d : grad_dtypes) {
    const DtypeTraits t = traits(d);
    if (s == t.name || s == t.aliases[0] || s == t.aliases[1]) return d;
  }
  return std::nullopt;
}

std::string grad_dtype_names(std::string_view last_joint) {
  std::vector<std::string_view> words;
  for (Dtype d : grad_dtypes) words.push_back(name(d));
  return spoken_list(words, last_joint);
}

std::optional<Dtype> from_abi_code(int code) {
  for (Dtype d : grad_dtypes)
    if (abi_code(d) == code) return d;
  return std::nullopt;
}

// 2^k, exactly, for -1022 <= k <= 1023 (a multiplication is cheaper than ldexp's call).
static double pow2(int k) { return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

// (2 - 2^(1-p)) 2^emax, exactly (p <= 53 and emax <= 1023 for every format here), without
// ldexp's two calls on every rounding.
static double max_finite(Format f) { return (2.0 - pow2(1 - f.precision)) * pow2(f.emax); }

double round_to(Dtype d, double x) {
  if (!std::isfinite(x) || x == 0.0) return x;
  const Format f = format_of(d);
  // Quantum (weight of the last significand bit) of x in format f; below 2^emin the
  // quantum stays at the subnormal one. Scaling by a power of two is exact in double
  // here (q lies in [-149, 1016] and both scaled values are normal, or the product
  // overflows as ldexp would), so nearbyint performs the single rounding, ties to even.
  const int e = std::max(std::ilogb(x), f.emin);
  const int q = e - (f.precision - 1);
  const double r = std::nearbyint(x * pow2(-q)) * pow2(q);
  if (std::fabs(r) > max_finite(f)) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

bool representable(Dtype d, double x) {
  if (std::isnan(x)) return true;
  return std::bit_cast<std::uint64_t>(round_to(d, x)) == std::bit_cast<std::uint64_t>(x);
}

// bf16 is the top half of a float32: exact for a bf16 value (the low 16 bits are zero).
static std::uint16_t encode_bf16(double x) {
  if (std::isnan(x)) return 0x7fc0;
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(x)) >> 16);
}

// fp16: sign, 5 exponent bits (bias 15), 10 fraction bits.
static std::uint16_t encode_fp16(double x) {
  if (std::isnan(x)) return 0x7e00;
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0.0) return sign;
  if (a < std::ldexp(1.0, -14))  // subnormal: fraction counts units of 2^-24
    return sign | static_cast<std::uint16_t>(std::ldexp(a, 24));
  const int e = std::ilogb(a);
  const auto frac = static_cast<std::uint16_t>(std::ldexp(a, 10 - e) - 1024.0);
  return sign | static_cast<std::uint16_t>((e + 15) << 10) | frac;
}

static double decode_fp16(std::uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int e = (bits >> 10) & 0x1f;
  const int frac = bits & 0x3ff;
  if (e == 0x1f)
    return frac ? std::numeric_limits<double>::quiet_NaN()
                : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(frac, -24);
  return sign * std::ldexp(1024 + frac, e - 25);
}

[[noreturn]] static void not16(const char* what, Dtype d) {
  throw std::invalid_argument(std::string(what) + ": " + std::string(name(d)) + " is not a 16-bit format");
}

std::uint16_t encode16(Dtype d, double x) {
  switch (d) {
    case Dtype::bf16: return encode_bf16(x);
    case Dtype::fp16: return encode_fp16(x);
    case Dtype::fp32: not16("encode16", d);
  }
  not16("encode16", d);
}

double decode16(Dtype d, std::uint16_t bits) {
  switch (d) {
    case Dtype::bf16: return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
    case Dtype::fp16: return decode_fp16(bits);
    case Dtype::fp32: not16("decode16", d);
  }
  not16("decode16", d);
}

void encode(Dtype d, double x, void* dst) {
  switch (d) {
    case Dtype::bf16:
    case Dtype::fp16: {
      const std::uint16_t b = encode16(d, x);
      std::memcpy(dst, &b, 2);
      return;
    }
    case Dtype::fp32: {
      const float f = static_cast<float>(x);
      std::memcpy(dst, &f, 4);
      return;
    }
  }
}

double decode(Dtype d, const void* src) {
  switch (d) {
    case Dtype::bf16:
    case Dtype::fp16: {
      std::uint16_t b;
      std::memcpy(&b, src, 2);
      return decode16(d, b);
    }
    case Dtype::fp32: {
      float f;
      std::memcpy(&f, src, 4);
      return f;
    }
  }
  return 0;  // not reached
}

}  // namespace rope2d::ref
