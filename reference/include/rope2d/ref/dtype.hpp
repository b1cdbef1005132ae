// Element types of the op and exact rounding of a double into each of them.
//
// Every value the op reads is exactly representable in double, so the reference works on
// doubles holding exact bf16 / fp16 / fp32 values, and rounds results into a target format
// with round-to-nearest-even, gradual underflow and overflow to infinity, as IEEE 754 does.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rope2d/rope2d_backward.h"

namespace rope2d::ref {

// A grad dtype: the element type of grad_cos and grad_sin. Everything about one lives in
// traits() below; the switches over Dtype have no default, so a new enumerator is reported
// (-Werror=switch) at every place that must handle it, and the static_asserts below report a
// list that misses it or an ABI code (rope2d_backward.h) without its dtype.
enum class Dtype { bf16, fp16, fp32 };

// The grad dtypes the op accepts (inputs).
inline constexpr Dtype grad_dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32};
// The formats the reference rounds every result into (outputs: Rounded, golden tensors). An
// input dtype is not thereby an output format: these three are fixed by the golden schema.
inline constexpr Dtype output_formats[] = {Dtype::fp32, Dtype::bf16, Dtype::fp16};
// Every enumerator, in the enum's order (static_assert'ed below); code that loops over "every
// dtype" uses this one.
inline constexpr Dtype all_dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32};
inline constexpr int dtype_count = static_cast<int>(sizeof(all_dtypes) / sizeof(all_dtypes[0]));

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
  return {"?", {"", ""}, 0, {53, -1022, 1023}, "", -1};  // no enumerator: bytes 0 marks it (below)
}

// all_dtypes holds every enumerator in order: entry k is Dtype(k) with a traits row, and
// Dtype(dtype_count), one past the list, has none. A dtype added to the enum and to traits()
// but not to the list, or listed out of order, fails here.
constexpr bool listed_in_order() {
  for (int k = 0; k < dtype_count; ++k)
    if (all_dtypes[k] != static_cast<Dtype>(k) || traits(all_dtypes[k]).bytes == 0) return false;
  return traits(static_cast<Dtype>(dtype_count)).bytes == 0;
}
static_assert(listed_in_order(), "all_dtypes (dtype.hpp) must list every Dtype, in the enum's order");

// The ABI's grad codes (the unnamed enum of rope2d_backward.h, spelled there only), each to
// its dtype. No default: a code added to the header without a dtype is a compile error here.
using AbiGradCode = decltype(ROPE2D_GRAD_BF16);
constexpr Dtype dtype_of_abi(AbiGradCode code) {
  switch (code) {
    case ROPE2D_GRAD_BF16: return Dtype::bf16;
    case ROPE2D_GRAD_FP16: return Dtype::fp16;
    case ROPE2D_GRAD_FP32: return Dtype::fp32;
  }
  return static_cast<Dtype>(dtype_count);  // no code of the header: no dtype
}
// Each dtype's ABI code is the header's code of that dtype, and the codes are distinct.
constexpr bool abi_codes_match() {
  for (Dtype d : all_dtypes)
    if (dtype_of_abi(static_cast<AbiGradCode>(traits(d).abi_code)) != d) return false;
  return true;
}
static_assert(abi_codes_match(), "traits(d).abi_code must be the ROPE2D_GRAD_* code of d (rope2d_backward.h)");

constexpr Format format_of(Dtype d) { return traits(d).format; }
constexpr int size_bytes(Dtype d) { return traits(d).bytes; }
constexpr int abi_code(Dtype d) { return traits(d).abi_code; }
constexpr std::string_view name(Dtype d) { return traits(d).name; }
constexpr std::string_view safetensors_name(Dtype d) { return traits(d).safetensors; }

// By name or alias; nullopt when unknown.
std::optional<Dtype> parse_dtype(std::string_view s);
// The grad dtypes' names for messages and help: "bf16, fp16 or fp32" (last_joint " or "), or
// "bf16, fp16, fp32" (", ").
std::string grad_dtype_names(std::string_view last_joint = " or ");
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
