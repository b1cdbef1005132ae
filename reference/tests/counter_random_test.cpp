// Unit tests of the counter-based generator's host side: Philox4x32-10 against the known-answer
// vectors of Random123 (the paper's reference implementation), the uniform's range and
// symmetry, the basic-operation log against the library's, the normal quantile against the
// normal CDF, the moments of the drawn normals, and the integer rounding against the
// reference's round_to + encode for every grad dtype (ties, subnormals and overflow included).
#include "rope2d/ref/counter_random.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/ref/random.hpp"

using namespace rope2d::ref;
using namespace rope2d::ref::counter;

TEST(Philox, KnownAnswers) {
  // Random123's kat_vectors, "philox4x32 10": counter (4 words), key (2 words), result.
  struct Kat {
    Block ctr;
    std::uint32_t k0, k1;
    Block want;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, 0xffffffff, 0xffffffff, {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0, {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Kat& k : kats) {
    const Block got = philox4x32_10(k.ctr, k.k0, k.k1);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(got.x[w], k.want.x[w]) << "word " << w;
  }
}

TEST(Counter, UniformIsOpenAndSymmetric) {
  EXPECT_EQ(uniform_open(0, 0), 0x1p-53);
  EXPECT_EQ(uniform_open(0xffffffff, 0xffffffff), 1.0 - 0x1p-53);
  EXPECT_EQ(uniform_open(0x80000000, 0), 0.5 + 0x1p-53);
  // Complementary words give u and 1 - u.
  for (std::uint32_t hi : {0u, 123456789u, 0x7fffffffu})
    EXPECT_EQ(uniform_open(hi, 0x12345678u) + uniform_open(~hi, ~0x12345678u), 1.0);
}

TEST(Counter, LogMatchesTheLibraryToAFewUlps) {
  Random rng(3);
  for (int i = 0; i < 200000; ++i) {
    const double x = i < 100000 ? uniform_open(static_cast<std::uint32_t>(rng.bits()), static_cast<std::uint32_t>(rng.bits()))
                                : std::ldexp(1.0 + rng.uniform(), -static_cast<int>(rng.below(60)));
    const double want = std::log(x), got = log_basic(x);
    ASSERT_LE(std::fabs(got - want), 4 * std::ldexp(std::numeric_limits<double>::epsilon(), std::ilogb(want)) + 0x1p-1074)
        << std::hexfloat << x;
  }
  EXPECT_EQ(log_basic(1.0), 0.0);
}

TEST(Counter, QuantileInvertsTheNormalCdf) {
  // Acklam's relative error is below 1.15e-9; Phi(x) from erfc is accurate to a few ulps.
  Random rng(4);
  for (int i = 0; i < 200000; ++i) {
    const double u = i % 2 ? rng.uniform() * 0.05 + 0x1p-53 : uniform_open(static_cast<std::uint32_t>(rng.bits()), 0);
    const double x = normal_quantile(u);
    const double phi = 0.5 * std::erfc(-x / std::sqrt(2.0));
    // d Phi / dx = pdf: a relative error e in x moves Phi by pdf(x) |x| e.
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    ASSERT_LE(std::fabs(phi - u), 1.2e-9 * std::fabs(x) * pdf + 1e-15 * u) << std::hexfloat << u;
    if (i % 2 == 0) {
      ASSERT_EQ(normal_quantile(1.0 - u), -x);  // symmetric: 1 - u is exact for the uniform's values
    }
  }
  EXPECT_EQ(normal_quantile(0.5 + 0x1p-53), -normal_quantile(0.5 - 0x1p-53));
  EXPECT_LT(normal_quantile(0x1p-53), -8.0);
}

TEST(Counter, GradsHaveTheMomentsOfAStandardNormal) {
  for (Dtype d : all_dtypes) {
    const Encoding f = encoding_of(d);
    constexpr int n = 1 << 20;
    double m1 = 0, m2 = 0, m3 = 0, m4 = 0, within1 = 0;
    for (int i = 0; i < n; ++i) {
      std::uint32_t gc, gs;
      normal_grads(77, static_cast<std::uint64_t>(i), f, gc, gs);
      for (std::uint32_t b : {gc, gs}) {
        const double x = f.width == 16 ? decode16(d, static_cast<std::uint16_t>(b)) : double(std::bit_cast<float>(b));
        m1 += x, m2 += x * x, m3 += x * x * x, m4 += x * x * x * x;
        within1 += std::fabs(x) < 1.0;
      }
    }
    const double k = 2.0 * n;
    // Standard errors over 2^21 values: mean 7e-4, variance 1e-3, skew 1.7e-3, kurtosis 3.4e-3.
    EXPECT_NEAR(m1 / k, 0.0, 5e-3) << name(d);
    EXPECT_NEAR(m2 / k, 1.0, 7e-3) << name(d);
    EXPECT_NEAR(m3 / k, 0.0, 1.2e-2) << name(d);
    EXPECT_NEAR(m4 / k, 3.0, 3e-2) << name(d);
    EXPECT_NEAR(within1 / k, 0.682689492, 2e-3) << name(d);  // P(|Z| < 1)
  }
  // The angle stream is another normal, independent of the grads' words.
  double m2 = 0, cross = 0;
  for (int i = 0; i < (1 << 18); ++i) {
    std::uint32_t gc, gs;
    normal_grads(5, static_cast<std::uint64_t>(i), encoding_of(Dtype::fp32), gc, gs);
    const double t = normal_angle(5, static_cast<std::uint64_t>(i));
    m2 += t * t;
    cross += t * std::bit_cast<float>(gc);
  }
  EXPECT_NEAR(m2 / (1 << 18), 1.0, 1.5e-2);
  EXPECT_NEAR(cross / (1 << 18), 0.0, 1e-2);
}

TEST(Counter, ElementsAreAPureFunctionOfSeedAndIndex) {
  std::uint32_t a, b, c, d;
  normal_grads(9, 1000, encoding_of(Dtype::bf16), a, b);
  normal_grads(9, 999, encoding_of(Dtype::bf16), c, d);
  normal_grads(9, 1000, encoding_of(Dtype::bf16), c, d);
  EXPECT_EQ(a, c);
  EXPECT_EQ(b, d);
  normal_grads(10, 1000, encoding_of(Dtype::bf16), c, d);
  EXPECT_FALSE(a == c && b == d);
  // Index bits above 32 reach the counter.
  EXPECT_NE(std::bit_cast<std::uint32_t>(normal_angle(9, 5)), std::bit_cast<std::uint32_t>(normal_angle(9, 5 + (1ull << 32))));
}

namespace {

std::uint32_t reference_bits(Dtype d, double x) {
  std::uint32_t out = 0;
  encode(d, round_to(d, x), &out);
  return out;
}

}  // namespace

TEST(Counter, RoundEncodeIsTheReferencesRounding) {
  Random rng(6);
  for (Dtype d : all_dtypes) {
    const Encoding f = encoding_of(d);
    const Format fmt = format_of(d);
    auto agree = [&](double x) {
      ASSERT_EQ(round_encode(x, f), reference_bits(d, x)) << name(d) << " " << std::hexfloat << x;
    };
    agree(0.0);
    agree(-0.0);
    for (int i = 0; i < 300000; ++i) {
      // Any binade from far below the subnormals to past the largest finite value.
      const int e = static_cast<int>(rng.between(fmt.emin - fmt.precision - 3, fmt.emax + 1));
      double x = std::ldexp(1.0 + rng.uniform(), e);
      if (i % 3 == 0) {
        // An exact tie: a value of the format plus half its quantum.
        const int q = std::max(e, fmt.emin) - (fmt.precision - 1);
        x = round_to(d, x) + std::ldexp(0.5, q);
      }
      agree(rng.chance(0.5) ? -x : x);
    }
    agree(std::ldexp(1.0, fmt.emin - fmt.precision));      // half the smallest subnormal: ties to 0
    agree(std::ldexp(1.5, fmt.emin - fmt.precision));      // rounds up to the smallest subnormal
    agree(std::ldexp(2.0 - std::ldexp(1.0, -fmt.precision), fmt.emax));  // the overflow tie
  }
  // float32: the conversion itself.
  for (int i = 0; i < 100000; ++i) {
    const double x = (rng.uniform() - 0.5) * std::ldexp(1.0, static_cast<int>(rng.below(40)) - 20);
    ASSERT_EQ(round_encode(x, float32_encoding), std::bit_cast<std::uint32_t>(static_cast<float>(x)));
  }
}

TEST(Counter, LayoutAngleIsTheFloat32Product) {
  const std::int32_t positions[] = {3, 7, 196607, 1};
  const float theta[] = {1.0f, 0.5f, 0.25f, 0.125f};
  // head_dim 8: k = (i mod 8) mod 4; y for even k, x for odd k.
  EXPECT_EQ(layout_angle(positions, theta, 0, 8), 3.0f);
  EXPECT_EQ(layout_angle(positions, theta, 1, 8), 3.5f);
  EXPECT_EQ(layout_angle(positions, theta, 6, 8), 0.75f);
  EXPECT_EQ(layout_angle(positions, theta, 8, 8), 196607.0f);
  EXPECT_EQ(layout_angle(positions, theta, 13, 8), 0.5f);
}
