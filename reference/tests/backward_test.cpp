// Unit tests: the exact backward (MPFR path) and the certified double path, on hard and
// special inputs, against an independent 1024-bit oracle.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "oracle.hpp"
#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/floats.hpp"
#include "rope2d/ref/regimes.hpp"

using namespace rope2d::ref;

namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

void expect_matches_oracle(const Element& e, rope2d::test::Oracle& oracle) {
  const Rounded r = exact_backward(e);
  for (Dtype d : all_dtypes)
    ASSERT_EQ(bits(r.in(d)), bits(oracle.rounded(e, d)))
        << name(d) << " FAIL gc=" << hex(e.gc) << " gs=" << hex(e.gs) << " t=" << hex(e.t)
        << " ref=" << hex(oracle.rounded(e, d)) << " got=" << hex(r.in(d));
  const Rounded c = certified_backward(e);
  for (Dtype d : all_dtypes) ASSERT_EQ(bits(c.in(d)), bits(r.in(d))) << name(d) << " certified";
  ASSERT_EQ(bits(certified_backward_fp32(e)), bits(static_cast<double>(static_cast<float>(r.fp32))));
}

}  // namespace

TEST(Backward, NearestAxisAnglesInEveryBinadeUpTo2To20) {
  const std::vector<float> angles = nearest_axis_angles(21, 3);
  // [1, 2) and [2, 4) hold one multiple of pi/2 each, [4, 8) two: 63 - 4 angles.
  ASSERT_EQ(angles.size(), 59u);
  rope2d::test::Oracle oracle;
  Random rng(7);
  for (float t : angles) {
    // sin or cos at these angles is below 2^-20 in magnitude: the hard direction.
    ASSERT_LT(std::min(std::fabs(std::sin(static_cast<double>(t))), std::fabs(std::cos(static_cast<double>(t)))), 0x1p-18)
        << hex(t);
    for (Dtype d : all_dtypes) {
      expect_matches_oracle({round_to(d, rng.normal()), round_to(d, rng.normal()), t}, oracle);
      expect_matches_oracle({round_to(d, rng.normal()), 0.0, t}, oracle);  // result is gc * tiny
      expect_matches_oracle({0.0, round_to(d, rng.normal()), -t}, oracle);
    }
  }
}

TEST(Backward, CancellingPairsAreCorrectlyRounded) {
  rope2d::test::Oracle oracle;
  Random rng(11);
  CertifiedStats stats;
  for (int i = 0; i < 3000; ++i) {
    const Dtype d = all_dtypes[i % 3];
    const Element e = draw(Regime::cancellation, rng, d);
    expect_matches_oracle(e, oracle);
    certified_backward(e, &stats);
  }
  // The set is built to cancel: with fp32 grads the result is ~2^-24 of the terms, and the
  // double enclosure can still decide most; all answers were checked above either way.
  EXPECT_GT(stats.fast, 0);
}

TEST(Backward, SubnormalGradsAndAnglesAreCorrectlyRounded) {
  rope2d::test::Oracle oracle;
  Random rng(13);
  int subnormal_results = 0;
  for (int i = 0; i < 3000; ++i) {
    const Element e = draw(Regime::subnormal, rng, all_dtypes[i % 3]);
    if (is_special(e)) continue;
    expect_matches_oracle(e, oracle);
    subnormal_results += std::fabs(exact_backward(e).fp32) < 0x1p-126;
  }
  EXPECT_GT(subnormal_results, 100);  // the set really reaches float32's subnormal results
}

TEST(Backward, SignedZerosFollowIeee) {
  // With t = ±0 (sin t = t, cos t = 1) or both grads zero the result is exact, and its sign
  // is what IEEE arithmetic gives for -(gc * sin t) + gs * cos t: a sum of two zeros is +0
  // unless both are -0. The double evaluation of the terms is the judge.
  const double gs_values[] = {0.0, -0.0, 2.0};
  const float ts[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f};
  for (double gc : {0.0, -0.0, 1.5, -1.5})
    for (double gs : gs_values)
      for (float t : ts) {
        if (t != 0.0f && !(gc == 0.0 && gs == 0.0)) continue;  // not a special case
        const double s = t == 0.0f ? static_cast<double>(t) : std::sin(static_cast<double>(t));
        const double c = t == 0.0f ? 1.0 : std::cos(static_cast<double>(t));
        const double ieee = -(gc * s) + gs * c;
        const Rounded r = exact_backward({gc, gs, t});
        for (Dtype d : all_dtypes)
          EXPECT_EQ(bits(r.in(d)), bits(round_to(d, ieee))) << hex(gc) << " " << hex(gs) << " " << hex(t);
      }
  EXPECT_TRUE(std::signbit(exact_backward({0.0, -0.0, 1.0f}).fp32));    // -0 + -0
  EXPECT_FALSE(std::signbit(exact_backward({-0.0, 0.0, 1.0f}).fp32));   // +0 + +0
  EXPECT_FALSE(std::signbit(exact_backward({1.5, 0.0, 0.0f}).fp32));    // -0 + +0 = +0
  EXPECT_TRUE(std::signbit(exact_backward({1.5, -0.0, 0.0f}).fp32));    // -(1.5*0) = -0, + -0
  EXPECT_EQ(exact_backward({1.5, 2.0, -0.0f}).fp32, 2.0);
}

TEST(Backward, NonFiniteInputs) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(exact_backward({nan, 1.0, 1.0f}).fp32));
  EXPECT_TRUE(std::isnan(exact_backward({1.0, nan, 1.0f}).bf16));
  EXPECT_TRUE(std::isnan(exact_backward({1.0, 1.0, static_cast<float>(nan)}).fp16));
  EXPECT_TRUE(std::isnan(exact_backward({1.0, 1.0, static_cast<float>(inf)}).fp32));
  EXPECT_TRUE(std::isnan(exact_backward({inf, 1.0, 0.0f}).fp32));  // inf * sin 0
  EXPECT_EQ(exact_backward({inf, 1.0, 1.0f}).fp32, -inf);          // -(inf * sin 1)
  EXPECT_EQ(exact_backward({1.0, -inf, 1.0f}).fp32, -inf);         // -inf * cos 1
  EXPECT_TRUE(std::isnan(exact_backward({inf, inf, 1.0f}).fp32));  // -inf + inf
  EXPECT_EQ(exact_backward({inf, inf, 3.0f}).fp32, -inf);          // sin 3 > 0, cos 3 < 0: -inf + -inf
}

TEST(Backward, ResultsOverflowToInfinityOnlyWhenExactDoes) {
  rope2d::test::Oracle oracle;
  const double big = std::numeric_limits<float>::max();
  expect_matches_oracle({big, big, 2.5f}, oracle);   // |result| ~ 1.4 FLT_MAX: fp32 rounds to -inf
  expect_matches_oracle({big, -big, 0.5f}, oracle);
  expect_matches_oracle({65504.0, 65504.0, 2.5f}, oracle);  // fp16 overflows, fp32 does not
}

TEST(Backward, ResultWithinATinyDistanceOfAMidpoint) {
  // gs = -0x1.17p+2 is a bf16 rounding midpoint, and gs cos(2^-149) lies 2^-297 inside it:
  // no double enclosure separates the two, so the MPFR path must decide in MPFR (found by
  // the CorrectlyRoundedToEveryDtype property).
  const Element e{0.0, -0x1.17p+2, 0x1p-149f};
  EXPECT_EQ(exact_backward(e).bf16, -0x1.16p+2);
  EXPECT_EQ(certified_backward(e).bf16, -0x1.16p+2);
  EXPECT_EQ(exact_backward(e).fp16, -0x1.17p+2);
  EXPECT_EQ(exact_backward({0.0, 0x1.17p+2, 0x1p-100f}).bf16, 0x1.16p+2);
}

TEST(Backward, ExactDecimalHasFortyDigits) {
  const std::string s = exact_decimal({1.0, 0.0, 1.0f});
  // -sin(1) = -0.8414709848078965066525023216302989996226...
  EXPECT_EQ(s.substr(0, 42), "-8.414709848078965066525023216302989996226");  // sign, 40 digits, point
  EXPECT_EQ(s.substr(s.size() - 4), "e-01");
  // Under heavy cancellation the digits are still right: compare with the oracle's double.
  Random rng(3);
  rope2d::test::Oracle oracle;
  for (int i = 0; i < 50; ++i) {
    const Element e = draw(Regime::cancellation, rng, Dtype::fp32);
    EXPECT_EQ(parse_float(exact_decimal(e)), oracle.value_d(e));
  }
}
