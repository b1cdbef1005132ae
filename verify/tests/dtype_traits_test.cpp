// The grad dtype table: names and aliases parse back to their dtype, ABI codes are the
// header's and distinct, storage sizes hold the format, and encode/decode round-trip.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "rope2d/rope2d_backward.h"
#include "rope2d/ref/dtype.hpp"
#include "rope2d/verify/codec/safetensors.hpp"

using namespace rope2d::ref;

TEST(DtypeTraits, NamesAliasesAndCodes) {
  std::set<int> codes;
  std::set<std::string_view> names;
  for (Dtype d : grad_dtypes) {
    const DtypeTraits t = traits(d);
    EXPECT_EQ(parse_dtype(t.name), d);
    for (std::string_view a : t.aliases) {
      if (!a.empty()) {
        EXPECT_EQ(parse_dtype(a), d) << a;
      }
    }
    EXPECT_EQ(from_abi_code(t.abi_code), d);
    codes.insert(t.abi_code);
    names.insert(t.safetensors);
    EXPECT_STREQ(rope2d::verify::safetensors_dtype(d), std::string(t.safetensors).c_str());
    // Sign, exponent and fraction fit the storage size.
    const int exponent_bits = static_cast<int>(std::ceil(std::log2(t.format.emax - t.format.emin + 3)));
    EXPECT_LE(1 + exponent_bits + t.format.precision - 1, 8 * t.bytes) << t.name;
  }
  EXPECT_EQ(codes.size(), std::size(grad_dtypes));
  EXPECT_EQ(names.size(), std::size(grad_dtypes));
  EXPECT_EQ(abi_code(Dtype::bf16), ROPE2D_GRAD_BF16);
  EXPECT_EQ(abi_code(Dtype::fp16), ROPE2D_GRAD_FP16);
  EXPECT_EQ(abi_code(Dtype::fp32), ROPE2D_GRAD_FP32);
  EXPECT_FALSE(parse_dtype("fp8").has_value());
  EXPECT_FALSE(parse_dtype("").has_value());
  EXPECT_FALSE(from_abi_code(-1).has_value());
}

TEST(DtypeTraits, EncodeDecodeRoundTrips) {
  for (Dtype d : grad_dtypes) {
    for (double x : {0.0, -0.0, 1.0, -1.5, 3.140625, std::ldexp(1.0, format_of(d).emin - 2), double(INFINITY)}) {
      const double v = round_to(d, x);
      unsigned char buf[8] = {};
      encode(d, v, buf);
      const double back = decode(d, buf);
      EXPECT_EQ(std::signbit(back), std::signbit(v));
      EXPECT_EQ(back, v) << name(d) << " " << x;
    }
  }
  EXPECT_THROW(encode16(Dtype::fp32, 1.0), std::invalid_argument);
  EXPECT_THROW(decode16(Dtype::fp32, 0), std::invalid_argument);
}
