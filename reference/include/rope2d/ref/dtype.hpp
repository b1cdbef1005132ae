// Element types of the op and exact rounding of a double into each of them.
//
// Every value the op reads is exactly representable in double, so the reference works on
// doubles holding exact bf16 / fp16 / fp32 values, and rounds results into a target format
// with round-to-nearest-even, gradual underflow and overflow to infinity, as IEEE 754 does.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rope2d/rope2d_backward.h"

namespace rope2d::ref {

// A grad dtype: the element type of grad_cos and grad_sin. Everything about one lives in
// traits() below; the switches over Dtype have no default, so a new enumerator is reported
// (-Werror=switch) at every place that must handle it.
enum class Dtype { bf16, fp16, fp32 };

// The grad dtypes the op accepts (inputs).
inline constexpr Dtype grad_dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32};
// The formats the reference rounds every result into (outputs: Rounded, golden tensors). An
// input dtype is not thereby an output format: these three are fixed by the golden schema.
inline constexpr Dtype output_formats[] = {Dtype::fp32, Dtype::bf16, Dtype::fp16};
// Both lists hold the same three today; code that loops over "every dtype" uses this one.
inline constexpr Dtype all_dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32};

// Binary format: `precision` significand bits (hidden bit included), exponents of normal
// numbers in [emin, emax].
struct Format {
  int precision;
  int emin;
  int emax;
};

struct DtypeTraits {
  std::string_view name;                    // as on the command line and in problem names
  std::array<std::string_view, 2> aliases;  // also accepted when parsing ("" for none)
  int bytes;                                // storage size of one element
  Format format;                            // the values it holds
  std::string_view safetensors;             // dtype string of its safetensors tensors
  int abi_code;                             // ROPE2D_GRAD_* of the submission ABI
};

constexpr DtypeTraits traits(Dtype d) {
  switch (d) {
    case Dtype::bf16: return {"bf16", {"bfloat16", ""}, 2, {8, -126, 127}, "BF16", ROPE2D_GRAD_BF16};
    case Dtype::fp16: return {"fp16", {"float16", "half"}, 2, {11, -14, 15}, "F16", ROPE2D_GRAD_FP16};
    case Dtype::fp32: return {"fp32", {"float32", "float"}, 4, {24, -126, 127}, "F32", ROPE2D_GRAD_FP32};
  }
  return {"?", {"", ""}, 0, {53, -1022, 1023}, "", -1};  // not reached: every enumerator returns above
}

constexpr Format format_of(Dtype d) { return traits(d).format; }
constexpr int size_bytes(Dtype d) { return traits(d).bytes; }
constexpr int abi_code(Dtype d) { return traits(d).abi_code; }
constexpr std::string_view name(Dtype d) { return traits(d).name; }
constexpr std::string_view safetensors_name(Dtype d) { return traits(d).safetensors; }

// By name or alias; nullopt when unknown.
std::optional<Dtype> parse_dtype(std::string_view s);
// The dtype of an ABI code; nullopt when unknown.
std::optional<Dtype> from_abi_code(int code);

// x rounded to the nearest value of format d (ties to even); NaN and infinities pass through.
double round_to(Dtype d, double x);

// True when x is a value of format d (NaN and infinities included).
bool representable(Dtype d, double x);

// Storage encodings for the 16-bit formats. Encoding takes a value representable in the
// format (round_to first); NaN encodes as the canonical quiet NaN.
std::uint16_t encode16(Dtype d, double x);
double decode16(Dtype d, std::uint16_t bits);

// Storage encoding of any dtype: size_bytes(d) bytes at dst / src (no alignment needed).
// Encoding takes a value representable in d.
void encode(Dtype d, double x, void* dst);
double decode(Dtype d, const void* src);

}  // namespace rope2d::ref
