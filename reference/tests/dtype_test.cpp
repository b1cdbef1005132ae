// Unit tests: rounding into bf16 / fp16 / fp32 and the 16-bit encodings.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/ref/random.hpp"

using namespace rope2d::ref;

TEST(Dtype, Bf16TiesToEven) {
  EXPECT_EQ(round_to(Dtype::bf16, 1.0 + 0x1p-8), 1.0);                     // tie, even below
  EXPECT_EQ(round_to(Dtype::bf16, 1.0 + 3 * 0x1p-8), 1.0 + 0x1p-6);        // tie, even above
  EXPECT_EQ(round_to(Dtype::bf16, 1.0 + 0x1p-8 + 0x1p-30), 1.0 + 0x1p-7);  // just above the tie
  EXPECT_EQ(round_to(Dtype::bf16, -3.0), -3.0);
}

TEST(Dtype, Fp16RangeEnds) {
  EXPECT_EQ(round_to(Dtype::fp16, 65504.0), 65504.0);
  EXPECT_EQ(round_to(Dtype::fp16, 65519.99), 65504.0);
  EXPECT_TRUE(std::isinf(round_to(Dtype::fp16, 65520.0)));  // the tie above the maximum overflows
  EXPECT_EQ(round_to(Dtype::fp16, 0x1p-24), 0x1p-24);       // smallest subnormal
  EXPECT_EQ(round_to(Dtype::fp16, 0x1p-25), 0.0);           // tie to even: zero
  EXPECT_EQ(round_to(Dtype::fp16, 3 * 0x1p-25), 0x1p-23);   // tie to even: two units
  EXPECT_TRUE(std::signbit(round_to(Dtype::fp16, -0x1p-26)));
}

TEST(Dtype, Fp32MatchesHardwareConversion) {
  Random rng(1);
  for (int i = 0; i < 200000; ++i) {
    // Doubles over bit patterns across float32's range, subnormals and overflow included.
    const double x = std::ldexp(rng.uniform() + 1.0, static_cast<int>(rng.between(-160, 130))) * (rng.chance(0.5) ? -1 : 1);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(round_to(Dtype::fp32, x)),
              std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<float>(x))))
        << std::hexfloat << x;
  }
}

TEST(Dtype, WholeDoubleRange) {
  // Random bit patterns over every double exponent, subnormal doubles and the largest
  // finite ones included: the power-of-two scaling inside round_to must stay exact.
  Random rng(2);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::bit_cast<double>((rng.bits() & ~(std::uint64_t{0x7ff} << 52)) |
                                           static_cast<std::uint64_t>(rng.below(2047)) << 52);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(round_to(Dtype::fp32, x)),
              std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<float>(x))))
        << std::hexfloat << x;
  }
  const double huge = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  for (Dtype d : all_dtypes) {
    EXPECT_EQ(round_to(d, huge), std::numeric_limits<double>::infinity()) << name(d);
    EXPECT_EQ(round_to(d, -huge), -std::numeric_limits<double>::infinity()) << name(d);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(round_to(d, -tiny)), std::bit_cast<std::uint64_t>(-0.0)) << name(d);
  }
  EXPECT_EQ(round_to(Dtype::bf16, 0x1.fep+127), 0x1.fep+127);                     // largest finite bf16
  EXPECT_EQ(round_to(Dtype::bf16, 0x1p-133), 0x1p-133);                           // smallest subnormal bf16
  EXPECT_EQ(round_to(Dtype::bf16, 0x1.8p-134), 0x1p-133);                         // rounds up to it
}

TEST(Dtype, EncodingsRoundTripEveryPattern) {
  for (Dtype d : {Dtype::bf16, Dtype::fp16}) {
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
      const double x = decode16(d, static_cast<std::uint16_t>(bits));
      if (std::isnan(x)) continue;
      ASSERT_TRUE(representable(d, x)) << name(d) << " " << bits;
      ASSERT_EQ(encode16(d, x), bits) << name(d) << " " << bits;
    }
  }
  EXPECT_EQ(decode16(Dtype::fp16, 0x3c00), 1.0);
  EXPECT_EQ(decode16(Dtype::bf16, 0x3f80), 1.0);
  EXPECT_EQ(decode16(Dtype::fp16, 0x0001), 0x1p-24);
}

TEST(Dtype, Representable) {
  EXPECT_TRUE(representable(Dtype::bf16, 0x1.fep+0));
  EXPECT_FALSE(representable(Dtype::bf16, 0x1.ffp+0));
  EXPECT_TRUE(representable(Dtype::fp16, 0x1.ffcp+0));
  EXPECT_FALSE(representable(Dtype::fp16, 1e-9));
  EXPECT_FALSE(representable(Dtype::fp32, 0.1));
  EXPECT_TRUE(representable(Dtype::fp32, static_cast<float>(0.1)));
}

TEST(Dtype, Names) {
  for (Dtype d : all_dtypes) EXPECT_EQ(parse_dtype(name(d)), d);
  EXPECT_FALSE(parse_dtype("fp8"));
}
