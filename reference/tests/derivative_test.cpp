// Unit tests: the analytic gradient is the derivative of the forward, by AutoDiff and by a
// bounded finite difference, elementwise and over a whole tensor from a layout.
#include <gtest/gtest.h>

#include <cmath>

#include "rope2d/ref/derivative.hpp"
#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/regimes.hpp"

using namespace rope2d::ref;

TEST(Derivative, AutoDiffAndFiniteDifferenceAgreeWithTheAnalyticGradient) {
  Random rng(21);
  for (Regime r : {Regime::randn, Regime::layout, Regime::large_angle, Regime::near_axis, Regime::cancellation}) {
    for (int i = 0; i < 60; ++i) {
      const Element e = draw(r, rng, Dtype::bf16);
      const auto ad = autodiff_agreement(e);
      const auto fd = finite_difference_agreement(e);
      ASSERT_TRUE(ad.holds()) << name(r) << " ad " << ad.difference << " > " << ad.bound;
      ASSERT_TRUE(fd.holds()) << name(r) << " fd " << fd.difference << " > " << fd.bound;
    }
  }
}

TEST(Derivative, BoundsAreTightEnoughToMeanSomething) {
  // Agreement is only evidence if the bound is tiny: any other formula (a sign error, sin and
  // cos swapped, a missing term) differs by O(|gc| + |gs|) somewhere, some 2^150 times more.
  Random rng(4);
  for (int i = 0; i < 100; ++i) {
    const Element e = draw(Regime::layout, rng, Dtype::bf16);
    const double m = std::fabs(e.gc) + std::fabs(e.gs);
    // The radius includes converting D to double (2^-52 |D|): still 2^28 times finer than
    // a float32 rounding cell, so the reference must be the rounding of D itself.
    EXPECT_LT(finite_difference_agreement(e).bound, 0x1p-50 * m);
    EXPECT_LT(autodiff_agreement(e).bound, 0x1p-50 * m);
  }
}

TEST(Derivative, ChecksTheShippedReferenceNotACopy) {
  // A reference result one float32 ulp off, or one bf16 ulp off, is outside the enclosure.
  Random rng(11);
  for (int i = 0; i < 50; ++i) {
    const Element e = draw(Regime::layout, rng, Dtype::bf16);
    const Rounded r = exact_backward(e);
    const double d = -e.gc * std::sin(static_cast<double>(e.t)) + e.gs * std::cos(static_cast<double>(e.t));
    const double radius = 0x1p-48 * condition_scale(e);
    ASSERT_TRUE(agreement_with(r, d, radius).holds());
    Rounded off32 = r, off16 = r;
    off32.fp32 = std::nextafter(static_cast<float>(r.fp32), INFINITY);
    off16.bf16 = round_to(Dtype::bf16, r.bf16 + std::ldexp(std::fabs(r.bf16), -7));
    EXPECT_FALSE(agreement_with(off32, d, radius).holds()) << i;
    EXPECT_FALSE(agreement_with(off16, d, radius).holds()) << i;
  }
}

TEST(Derivative, WholeTensorFromALayout) {
  Layout layout = random_layout(5, {.batch = 2, .seq_len = 3, .max_image_side = 2});
  const std::vector<float> t = angles(layout);
  ASSERT_EQ(t.size(), 2u * 3 * 128);
  Random rng(9);
  std::vector<double> gc(t.size()), gs(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    gc[i] = round_to(Dtype::bf16, rng.normal());
    gs[i] = round_to(Dtype::bf16, rng.normal());
  }
  const auto agreement = tensor_autodiff_agreement(gc, gs, t);
  EXPECT_TRUE(agreement.holds()) << agreement.difference << " > " << agreement.bound;
  EXPECT_GT(agreement.bound, 0.0);
}
