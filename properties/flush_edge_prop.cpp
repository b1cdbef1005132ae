// Properties of the verdict at flush-to-zero's edge: products and results drawn within a few
// ulps of 2^-126 (ref::near_smallest_normal); every honest float32 evaluation (IEEE and
// flushing, each FMA order, sin and cos up to a float from correctly rounded) passes the
// float32-bound tier, and each dishonest one listed here fails where it differs from them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cfloat>
#include <cmath>

#include "generators.hpp"
#include "rope2d/verify/model/flush.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/tolerance_core.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

float ftz(float x, bool on) { return on && x != 0 && std::fabs(x) < FLT_MIN ? std::copysign(0.0f, x) : x; }

// sin or cos rounded to float (within a float of the correctly rounded value), moved `off`
// floats, kept in [-1, 1] (the premise).
float near_rn(double v, int off) {
  float f = static_cast<float>(v);
  for (int i = 0; i < std::abs(off); ++i) f = std::nextafter(f, off > 0 ? 2.0f : -2.0f);
  return std::fmin(1.0f, std::fmax(-1.0f, f));
}

struct Evaluation {
  int order;  // 0: two products and a sum; 1: fma(gs, c, -RN(gc*s)); 2: fma(-gc, s, RN(gs*c))
  bool flush; // -ftz=true: every operand and result below 2^-126 taken as zero
  int sin_off, cos_off;
};

float evaluate(const ref::Element& e, const Evaluation& h) {
  const bool z = h.flush;
  const float t = ftz(e.t, z);
  const float s = ftz(near_rn(std::sin(static_cast<double>(t)), h.sin_off), z);
  const float c = ftz(near_rn(std::cos(static_cast<double>(t)), h.cos_off), z);
  const float gc = ftz(static_cast<float>(e.gc), z), gs = ftz(static_cast<float>(e.gs), z);
  switch (h.order) {
    case 0: return ftz(ftz(gs * c, z) - ftz(gc * s, z), z);
    case 1: return ftz(std::fma(gs, c, -ftz(gc * s, z)), z);
    default: return ftz(std::fma(-gc, s, ftz(gs * c, z)), z);
  }
}

// The verdict on one output, beside an ordinary element judged right (the all-zero guard).
bool passes(ref::Dtype d, const ref::Element& e, float got) {
  const ref::Element ordinary{0.75, -0.5, 1.25f};
  const Problem p = problem_of("flush_edge", d, {e, ordinary});
  const Expected x = compute_expected(p);
  const float out[] = {got, x.fp32[1]};
  return compare(p, x, out, Tier::float32_bound, 1).passes(Tier::float32_bound);
}

rc::Gen<ref::Element> near_smallest_normal(ref::Dtype d) {
  return rc::gen::apply(
      [d](int kind, int mant, int ulps, int spread, int other, bool negative) {
        return ref::near_smallest_normal(d, kind, 1 + mant * 0x1p-20, ulps, spread, other * 0x1p-10, negative);
      },
      rc::gen::inRange(0, 3), rc::gen::inRange(0, 3 << 20), rc::gen::inRange(-12, 13), rc::gen::inRange(0, 9),
      rc::gen::weightedOneOf<int>({{1, rc::gen::just(0)}, {3, rc::gen::inRange(-1024, 1024)}}), rc::gen::arbitrary<bool>());
}

rc::Gen<ref::Dtype> edge_dtype() { return rc::gen::element(ref::Dtype::bf16, ref::Dtype::fp32); }

}  // namespace

RC_GTEST_PROP(FlushEdge, EveryHonestEvaluationPasses, ()) {
  const ref::Dtype d = *edge_dtype();
  const ref::Element e = *near_smallest_normal(d);
  RC_PRE(std::isfinite(e.t));
  const float r = ref::certified_backward_fp32(e);
  RC_CLASSIFY(std::fabs(r) < FLT_MIN, "subnormal reference");
  RC_CLASSIFY(std::fabs(r) >= FLT_MIN && std::fabs(r) < 0x1p-125f, "reference just above 2^-126");
  bool flushed_zero = false;
  for (int order = 0; order < 3; ++order)
    for (bool flush : {false, true})
      for (int so : {-1, 0, 1})
        for (int co : {-1, 0, 1}) {
          const Evaluation h{order, flush, so, co};
          const float got = evaluate(e, h);
          flushed_zero |= flush && got == 0 && r != 0;
          if (!passes(d, e, got))
            RC_FAIL("honest evaluation fails: order " + std::to_string(order) + (flush ? " ftz" : " ieee") + " sin " +
                    std::to_string(so) + " cos " + std::to_string(co) + " got=" + ref::hex(got) + " ref=" + ref::hex(r));
        }
  RC_CLASSIFY(flushed_zero, "flushed to zero, nonzero reference");
}

RC_GTEST_PROP(FlushEdge, DishonestEvaluationsFail, ()) {
  const ref::Dtype d = *edge_dtype();
  const ref::Element e = *near_smallest_normal(d);
  RC_PRE(std::isfinite(e.t));
  const float r = ref::certified_backward_fp32(e);
  const double S = ref::condition_scale(e);
  double s, c;
  ::sincos(static_cast<double>(e.t), &s, &c);
  const float ieee = evaluate(e, {0, false, 0, 0});
  // A sign error, where the result is well clear of every allowance.
  if (std::fabs(r) >= 0x1p-127f && core::allowance(verify::Tier::float32_bound, r, S, e.gc) < 0x1p-130) {
    RC_CLASSIFY(true, "negated");
    RC_ASSERT(!passes(d, e, -ieee));
  }
  // Zero for a result no honest evaluation leaves below 2^-126: every value but the result
  // normal (products near 2^-119 cancelling), and the result window short of 2^-126.
  const bool terms = core::subnormal_terms(e.gc, e.gs, e.t, s, c);
  if (!terms && core::result_window_margin(r, S, e.gc, false) > 0x1p-150 && std::fabs(r) > core::allowance(verify::Tier::float32_bound, r, S, e.gc)) {
    RC_CLASSIFY(true, "zero outside the result window");
    RC_ASSERT(!passes(d, e, 0.0f));
  }
  // A product flushed outside the proven window but inside the old one (2^-126 (1 + 2^-20)):
  // the term gc*sin t dropped, where the rest of the result is well clear of zero.
  const double p1 = std::fabs(e.gc * s);
  if (p1 >= core::product_window * (1 + 0x1p-40) && p1 < 0x1p-126 * (1 + 0x1p-20) && std::fabs(e.gs * c) > 0x1p-130) {
    RC_CLASSIFY(true, "product flushed outside the window");
    const float dropped = static_cast<float>(e.gs) * near_rn(c, 0);
    RC_ASSERT(!passes(d, e, dropped));
  }
}

TEST(FlushEdge, GeneratorReachesTheEdge) {
  // Coverage the properties rely on: the draws put products and results within a few ulps of
  // 2^-126 (checked here on a fixed sweep of the generator's parameters).
  int products = 0, results = 0;
  for (int kind = 0; kind < 3; ++kind)
    for (int ulps = -8; ulps <= 8; ++ulps) {
      const ref::Element e = ref::near_smallest_normal(ref::Dtype::fp32, kind, 1.5, ulps, 2, 0.25, ulps % 2 != 0);
      double s, c;
      ::sincos(static_cast<double>(e.t), &s, &c);
      const double p = kind == 0 ? std::fabs(e.gc * s) : std::fabs(e.gs * c);
      if (kind < 2 && std::fabs(p / 0x1p-126 - 1) < 24 * 0x1p-23) ++products;
      const double r = std::fabs(ref::certified_backward_fp32(e));
      if (kind == 2 && std::fabs(r / 0x1p-126 - 1) < 64 * 0x1p-23) ++results;
    }
  EXPECT_EQ(products, 34);
  EXPECT_GE(results, 12);
}
