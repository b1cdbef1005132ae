// Unit tests: each input regime produces the inputs it promises, exact in the grad dtype.
#include <gtest/gtest.h>

#include <cmath>

#include "rope2d/ref/regimes.hpp"

using namespace rope2d::ref;

TEST(Regimes, GradsAreExactInTheirDtype) {
  for (Regime r : all_regimes)
    for (Dtype d : all_dtypes) {
      Random rng(1);
      for (int i = 0; i < 2000; ++i) {
        const Element e = draw(r, rng, d);
        ASSERT_TRUE(representable(d, e.gc)) << name(r) << " " << name(d);
        ASSERT_TRUE(representable(d, e.gs)) << name(r) << " " << name(d);
      }
    }
}

TEST(Regimes, EachRegimeHitsItsCases) {
  Random rng(2);
  auto count = [&](Regime r, auto pred) {
    int n = 0;
    for (int i = 0; i < 2000; ++i) n += pred(draw(r, rng, Dtype::bf16)) ? 1 : 0;
    return n;
  };
  // Exact results past FLT_MAX and below it, both common (fp32 grads reach the top of the range).
  int above = 0, below = 0;
  for (int i = 0; i < 2000; ++i) {
    const Element e = draw(Regime::near_overflow, rng, Dtype::fp32);
    const double x = std::fabs(-e.gc * std::sin(static_cast<double>(e.t)) + e.gs * std::cos(static_cast<double>(e.t)));
    above += x > 0x1.fffffep+127;
    below += x <= 0x1.fffffep+127 && x > 0x1p+120;
  }
  EXPECT_GT(above, 100);
  EXPECT_GT(below, 100);
  EXPECT_GT(count(Regime::large_angle, [](const Element& e) { return std::fabs(e.t) >= 1024; }), 1999);
  EXPECT_GT(count(Regime::layout, [](const Element& e) { return std::fabs(e.t) > 1000; }), 900);
  EXPECT_GT(count(Regime::near_axis, [](const Element& e) {
              const double t = e.t;
              return std::min(std::fabs(std::sin(t)), std::fabs(std::cos(t))) < 0x1p-14;
            }), 1990);
  EXPECT_GT(count(Regime::cancellation, [](const Element& e) {
              return std::fabs(-e.gc * std::sin(double(e.t)) + e.gs * std::cos(double(e.t))) < 0.02 * condition_scale(e);
            }), 1900);
  EXPECT_GT(count(Regime::signed_zero, [](const Element& e) { return std::signbit(e.gc) && e.gc == 0; }), 100);
  EXPECT_GT(count(Regime::subnormal, [](const Element& e) { return e.gc != 0 && std::fabs(e.gc) < 0x1p-126; }), 1000);
  EXPECT_GT(count(Regime::nonfinite, [](const Element& e) { return std::isnan(e.gc) || std::isnan(e.gs) || std::isnan(e.t); }), 300);
  EXPECT_GT(count(Regime::nonfinite, [](const Element& e) { return std::isinf(e.t); }), 100);
}

TEST(Regimes, NearestAxisAnglesAreTheClosestInTheirBinade) {
  // In [1, 2) the only multiple of pi/2 is pi/2 itself: the nearest float is fl32(pi/2).
  const auto a = nearest_axis_angles(2, 1);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], static_cast<float>(M_PI / 2));
  // In [2, 4) the candidates are pi and 3pi/2 only; either way |cos| or |sin| is tiny.
  EXPECT_LT(std::min(std::fabs(std::sin(double(a[1]))), std::fabs(std::cos(double(a[1])))), 1e-7);
}
