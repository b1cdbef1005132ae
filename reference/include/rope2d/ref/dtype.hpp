// Element types of the op and exact rounding of a double into each of them.
//
// Every value the op reads is exactly representable in double, so the reference works on
// doubles holding exact bf16 / fp16 / fp32 values, and rounds results into a target format
// with round-to-nearest-even, gradual underflow and overflow to infinity, as IEEE 754 does.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rope2d::ref {

enum class Dtype { bf16, fp16, fp32 };

inline constexpr Dtype all_dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32};

// Binary format: `precision` significand bits (hidden bit included), exponents of normal
// numbers in [emin, emax].
struct Format {
  int precision;
  int emin;
  int emax;
};

constexpr Format format_of(Dtype d) {
  switch (d) {
    case Dtype::bf16: return {8, -126, 127};
    case Dtype::fp16: return {11, -14, 15};
    case Dtype::fp32: return {24, -126, 127};
  }
  return {53, -1022, 1023};
}

std::string_view name(Dtype d);
std::optional<Dtype> parse_dtype(std::string_view s);
int size_bytes(Dtype d);

// x rounded to the nearest value of format d (ties to even); NaN and infinities pass through.
double round_to(Dtype d, double x);

// True when x is a value of format d (NaN and infinities included).
bool representable(Dtype d, double x);

// Storage encodings for the 16-bit formats. Encoding takes a value representable in the
// format (round_to first); NaN encodes as the canonical quiet NaN.
std::uint16_t encode16(Dtype d, double x);
double decode16(Dtype d, std::uint16_t bits);

}  // namespace rope2d::ref
