// Unit tests of the near-overflow pieces: the error measure an infinity is judged by, and the
// regime of grads near the top of the float32 range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "rope2d/ref/overflow.hpp"

using namespace rope2d::ref;

TEST(Overflow, ErrorOfAnInfinityIsTheGapToTheThreshold) {
  constexpr double flt_max = std::numeric_limits<float>::max();
  EXPECT_EQ(float32_overflow_threshold, flt_max + 0x1p+103);
  EXPECT_EQ(static_cast<float>(float32_overflow_threshold), INFINITY);  // the midpoint rounds to even: inf
  EXPECT_LT(static_cast<float>(std::nextafter(float32_overflow_threshold, 0.0)), INFINITY);
  EXPECT_EQ(overflow_error(INFINITY, flt_max), 0x1p+103);
  EXPECT_EQ(overflow_error(INFINITY, 0x1p+129), 0.0);
  EXPECT_EQ(overflow_error(-INFINITY, -flt_max), 0x1p+103);
  EXPECT_EQ(overflow_error(-INFINITY, flt_max), INFINITY);  // wrong sign
  EXPECT_EQ(overflow_error(std::numeric_limits<float>::max(), 0x1p+128), 0x1p+128 - flt_max);
  EXPECT_EQ(overflow_error(NAN, 1.0), INFINITY);
}

TEST(Overflow, TheIssueExampleIsJustBelowTheThreshold) {
  const Element e{-0x1p+127, 0x1.fffffep+127, 0x1p-24f};
  const double exact = unrounded_value(e);
  EXPECT_LT(exact, float32_overflow_threshold);
  EXPECT_GT(exact, std::numeric_limits<float>::max());
  EXPECT_EQ(certified_backward_fp32(e), std::numeric_limits<float>::max());
}

TEST(Overflow, RegimeGradsAreExactAndReachOverflow) {
  for (Dtype d : {Dtype::bf16, Dtype::fp16, Dtype::fp32}) {
    Random rng(2);
    int overflowing = 0;
    for (int i = 0; i < 2000; ++i) {
      const Element e = near_overflow(rng, d);
      ASSERT_TRUE(representable(d, e.gc) && representable(d, e.gs)) << name(d);
      ASSERT_TRUE(std::isfinite(e.gc) && std::isfinite(e.gs) && std::isfinite(e.t));
      overflowing += std::fabs(unrounded_value(e)) >= float32_overflow_threshold;
    }
    if (d != Dtype::fp16) {
      EXPECT_GT(overflowing, 20) << name(d);  // fp16's top is far below float32's
    }
  }
}
