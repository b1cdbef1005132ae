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
    EXPECT_LT(finite_difference_agreement(e).bound, 0x1p-150 * m);
    EXPECT_LT(autodiff_agreement(e).bound, 0x1p-200 * m);
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
