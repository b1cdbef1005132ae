// Unit tests of the tolerance table against its counterexamples: the premise of the
// float32-bound tier, flush-to-zero as a recognised mode, overflow, and the tier names.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "rope2d/ref/floats.hpp"
#include "rope2d/ref/overflow.hpp"
#include "rope2d/ref/regimes.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/tolerance_core.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

// One float32 evaluation of the kernel's formula; `flush` zeroes the chosen subnormal values
// (as a toolchain's flush-to-zero does), `sin_error` adds an absolute error to sin.
float kernel(const ref::Element& e, unsigned flush = 0, float sin_error = 0, float sign = 1) {
  auto ftz = [](float x, bool on) { return on && std::fabs(x) < std::numeric_limits<float>::min() ? std::copysign(0.0f, x) : x; };
  const float t = ftz(e.t, flush & flush_angle);
  const float s = std::sin(t) + sin_error, c = std::cos(t);
  const float p1 = ftz(ftz(static_cast<float>(e.gc), flush & flush_sin_term) * s, flush & flush_sin_term);
  const float p2 = ftz(ftz(static_cast<float>(e.gs), flush & flush_cos_term) * c, flush & flush_cos_term);
  return ftz(sign * -p1 + p2, flush & flush_result);
}

Metrics judge(const Problem& p, const std::vector<float>& out, Subnormals mode = Subnormals::flush_allowed) {
  return compare(p, compute_expected(p), out.data(), Tier::float32_bound, max_failures_kept, mode);
}

std::vector<float> run(const Problem& p, unsigned flush = 0, float sin_error = 0, float sign = 1) {
  std::vector<float> out(p.n());
  for (std::int64_t i = 0; i < p.n(); ++i) out[i] = kernel(p.element(i), flush, sin_error, sign);
  return out;
}

// The subnormal regime's elements in which a subnormal value takes part (and only those, so
// a verdict on them is a verdict on the subnormal handling).
Problem subnormal_problem(ref::Dtype d) {
  ProblemSpec spec;
  spec.set = "subnormal";
  spec.source = AngleSource::regime;
  spec.regime = ref::Regime::subnormal;
  spec.grad_dtype = d;
  spec.elements = 8192;
  spec.seed = 12345;
  const Problem all = make_problem(spec);
  std::vector<ref::Element> es;
  for (std::int64_t i = 0; i < all.n(); ++i)
    if (!flushed_problems(all.element(i)).empty()) es.push_back(all.element(i));
  return problem_of("subnormal", d, es);
}

// One element's output judged beside an ordinary element judged right, so that a zero output
// meets the verdict on its value and not the all-zero guard.
Metrics judge_one(ref::Dtype d, const ref::Element& e, float got, Subnormals mode = Subnormals::flush_allowed) {
  const ref::Element ordinary{0.75, -0.5, 1.25f};
  const Problem p = problem_of("edge", d, {e, ordinary});
  return judge(p, {got, compute_expected(p).fp32[1]}, mode);
}

}  // namespace

TEST(Tolerance, CounterexampleToTheOldPremisePasses) {
  // sinf and cosf each 2 ulp from their correctly rounded values (FLOAT32_BOUND.md).
  const Problem p = problem_of("premise", ref::Dtype::fp32, {{-0x1.167fd4p+0, 0x1.3f836cp-23, 0x1.000032p-8f}});
  const Metrics m = judge(p, {0x1.168262p-8f});
  EXPECT_EQ(compute_expected(p).fp32[0], 0x1.16825ap-8f);
  EXPECT_TRUE(m.passes(Tier::float32_bound)) << m.over[0];
  EXPECT_FALSE(m.passes(Tier::fp32_noise));  // stricter than float32-bound, as its name says
}

TEST(Tolerance, AnErrorJustOverTheAllowanceFails) {
  ref::Random rng(3);
  for (int i = 0; i < 500; ++i) {
    const ref::Element e = ref::draw(i % 2 ? ref::Regime::cancellation : ref::Regime::randn, rng, ref::Dtype::bf16);
    const float r = ref::certified_backward_fp32(e);
    const double s = ref::condition_scale(e);
    for (Tier t : all_tiers) {
      if (t == Tier::solexecbench) continue;  // float32 arithmetic at its threshold: SxbTier.ThresholdInFloat32
      const double a = allowance(t, r, s, e.gc);
      float over = static_cast<float>(r + a);
      while (std::fabs(static_cast<double>(over) - r) <= a) over = std::nextafter(over, INFINITY);
      EXPECT_FALSE(within(t, e, r, s, over)) << name(t);
      EXPECT_TRUE(within(t, e, r, s, std::nextafter(over, -INFINITY))) << name(t);
    }
  }
}

TEST(Tolerance, TritonFlushedAngleIsRecognised) {
  // Triton's tl.sin/tl.cos take the subnormal angle as zero and keep the subnormal product.
  const Problem p = problem_of("triton", ref::Dtype::bf16, {{-0x1.f4p-1, -0x1.cp-131, -0x1.99f1b8p-128f}});
  EXPECT_EQ(compute_expected(p).fp32[0], -0x1.c8561p-128f);
  const Metrics m = judge(p, {-0x1.cp-131f});
  EXPECT_TRUE(m.passes(Tier::float32_bound));
  EXPECT_EQ(m.subnormal_modes[flush_angle], 1);
  EXPECT_EQ(m.subnormal_mode(), "flushes angle (1)");
  EXPECT_FALSE(judge(p, {-0x1.cp-131f}, Subnormals::ieee).passes(Tier::float32_bound));
  EXPECT_EQ(m.over_ieee[0], 1);
  EXPECT_FALSE(m.passes(Tier::float32_bound, Subnormals::ieee));
}

TEST(Tolerance, FlushedAngleWithInfiniteGradsGivesNaN) {
  // Seen on the H200 from a -ftz=true build and from Triton: with the subnormal angle taken as
  // zero, -inf * sin(0) + inf * cos(0) = NaN, while the IEEE result is inf.
  const Problem p = problem_of("special", ref::Dtype::bf16, {{INFINITY, INFINITY, -0x1.fffffcp-127f}, {INFINITY, -INFINITY, 0x1p-149f}});
  const Expected x = compute_expected(p);
  EXPECT_EQ(x.fp32[0], INFINITY);
  EXPECT_EQ(x.fp32[1], -INFINITY);
  const Metrics m = judge(p, {NAN, NAN});
  EXPECT_TRUE(m.passes(Tier::float32_bound)) << m.over[0] << " " << m.nonfinite_mismatch;
  EXPECT_EQ(m.subnormal_modes[flush_angle], 2);
  EXPECT_FALSE(judge(p, {NAN, NAN}, Subnormals::ieee).passes(Tier::float32_bound));
  // A NaN where no flush explains it still fails: the angle here is normal (ref -inf).
  const Problem q = problem_of("special", ref::Dtype::bf16, {{INFINITY, 0.0, 0x1p-126f}});
  EXPECT_EQ(compute_expected(q).fp32[0], -INFINITY);
  EXPECT_FALSE(judge(q, {NAN}).passes(Tier::float32_bound));
}

TEST(Tolerance, FlushToZeroModesPassAndWrongKernelsStillFail) {
  for (ref::Dtype d : {ref::Dtype::bf16, ref::Dtype::fp32}) {
    const Problem p = subnormal_problem(d);
    ASSERT_GT(p.n(), 1000);
    const Metrics ieee = judge(p, run(p));
    EXPECT_TRUE(ieee.passes(Tier::float32_bound));
    EXPECT_GT(ieee.subnormal_modes[0], 0);
    EXPECT_EQ(ieee.subnormal_mode().rfind("IEEE", 0), 0u) << ieee.subnormal_mode();
    EXPECT_TRUE(judge(p, run(p), Subnormals::ieee).passes(Tier::float32_bound));
    for (unsigned flush : {unsigned(flush_angle), unsigned(flush_angle | flush_sin_term | flush_cos_term | flush_result)}) {
      const Metrics m = judge(p, run(p, flush));
      EXPECT_TRUE(m.passes(Tier::float32_bound)) << flush_mask_name(flush) << " " << m.over[0];
      EXPECT_NE(m.subnormal_mode().find("flushes"), std::string::npos) << m.subnormal_mode();
      EXPECT_FALSE(judge(p, run(p, flush), Subnormals::ieee).passes(Tier::float32_bound)) << flush_mask_name(flush);
    }
    // A sign error, or a fast-math-sized error of sin (2^-21 absolute), fails with or
    // without flushing.
    for (unsigned flush : {0u, unsigned(flush_angle)}) {
      EXPECT_FALSE(judge(p, run(p, flush, 0, -1)).passes(Tier::float32_bound));
      EXPECT_FALSE(judge(p, run(p, flush, 0x1p-21f)).passes(Tier::float32_bound));
    }
  }
}

TEST(Tolerance, OverflowOfABoundedErrorEvaluationIsAccepted) {
  const ref::Element e{-0x1p+127, 0x1.fffffep+127, 0x1p-24f};
  const float r = ref::certified_backward_fp32(e);
  ASSERT_EQ(r, std::numeric_limits<float>::max());
  ASSERT_TRUE(std::isinf(kernel(e)));  // the honest float32 evaluation
  const double s = ref::condition_scale(e);
  for (Tier t : all_tiers) {
    EXPECT_EQ(within(t, e, r, s, INFINITY), rule(t).bound_based) << name(t);
    EXPECT_FALSE(within(t, e, r, s, -INFINITY)) << name(t);
  }
  // Far from overflow an infinity is wrong in every tier.
  const ref::Element far{-0x1p+100, 0x1p+100, 0.5f};
  for (Tier t : all_tiers) EXPECT_FALSE(within(t, far, ref::certified_backward_fp32(far), ref::condition_scale(far), INFINITY));
  // Judged as a set: the bound-based tiers pass, SOL-ExecBench's (any Inf fails) does not.
  const Problem p = problem_of("overflow", ref::Dtype::fp32, {e});
  const Metrics m = judge(p, {INFINITY});
  EXPECT_TRUE(m.passes(Tier::float32_bound));
  EXPECT_FALSE(m.passes(Tier::solexecbench));
  EXPECT_EQ(m.overflow_accepted, 1);
}

TEST(Tolerance, NearOverflowRegimeHonestEvaluationPasses) {
  ref::Random rng(8);
  std::vector<ref::Element> es;
  for (int i = 0; i < 4000; ++i) es.push_back(ref::near_overflow(rng, ref::Dtype::bf16));
  const Problem p = problem_of("near_overflow", ref::Dtype::bf16, es);
  const std::vector<float> out = run(p);
  const Metrics m = judge(p, out);
  EXPECT_TRUE(m.passes(Tier::float32_bound)) << m.over[0] << (m.failures.empty() ? "" : m.failures[0].line("near_overflow"));
  int infinities = 0;
  for (float o : out) infinities += std::isinf(o);
  EXPECT_GT(infinities, 0);  // the regime reaches overflow
  // A kernel that returns the wrong infinity is caught.
  std::vector<float> wrong = out;
  for (float& o : wrong)
    if (std::isinf(o)) o = -o;
  EXPECT_FALSE(judge(p, wrong).passes(Tier::float32_bound));
}

TEST(Tolerance, TierNamesAndDeprecatedAliases) {
  EXPECT_EQ(parse_tier("float32-bound"), Tier::float32_bound);
  for (auto [old, now] : {std::pair{"strict", Tier::float32_bound}, std::pair{"faithful-bf16", Tier::bf16_noise},
                          std::pair{"faithful-fp16", Tier::fp16_noise}, std::pair{"faithful-fp32", Tier::fp32_noise}}) {
    std::string warning;
    EXPECT_EQ(parse_tier(old, &warning), now);
    EXPECT_NE(warning.find("deprecated"), std::string::npos);
    EXPECT_NE(warning.find(std::string(name(now))), std::string::npos);
  }
  std::string none;
  EXPECT_EQ(parse_tier("solexecbench", &none), Tier::solexecbench);
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(parse_tier("strictest"));
  // The model floor writes nothing: where a warning goes is its caller's choice (the CLI's stderr).
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse_tier("strict"), Tier::float32_bound);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(tier_names(), "float32-bound, bf16-noise, fp16-noise, fp32-noise, solexecbench");
  // fp32-noise is the strictest bound-based tier, float32-bound the loosest of the float32 ones.
  EXPECT_LT(rule(Tier::fp32_noise).scale_coeff, rule(Tier::float32_bound).scale_coeff);
}

TEST(Tolerance, WorstSetHonestEvaluationPassesAndFastMathFails) {
  for (ref::Dtype d : {ref::Dtype::bf16, ref::Dtype::fp32}) {
    const Problem p = worst_problem(std::string(ROPE2D_TEST_DIR) + "/../../reference/worst", d);
    ASSERT_GT(p.n(), 250) << ref::name(d);
    const Metrics m = judge(p, run(p));
    EXPECT_TRUE(m.passes(Tier::float32_bound)) << (m.failures.empty() ? "" : m.failures[0].line("worst"));
    EXPECT_FALSE(judge(p, run(p, 0, 0x1p-21f)).passes(Tier::float32_bound));
  }
  EXPECT_THROW(worst_problem(std::string(ROPE2D_TEST_DIR) + "/no-such-dir", ref::Dtype::bf16), std::invalid_argument);
}

TEST(Tolerance, CheapSubnormalTestIsConservative) {
  // may_involve_subnormal is the fast path's filter: it must never miss an element in which a
  // subnormal value takes part, including tiny normal angles and grads whose product is subnormal.
  ref::Random rng(6);
  int involved = 0;
  for (int i = 0; i < 200000; ++i) {
    auto tiny_or_normal = [&](int lo) { return std::ldexp(1.0 + rng.uniform(), -static_cast<int>(rng.below(lo))); };
    const ref::Element e{ref::round_to(ref::Dtype::bf16, tiny_or_normal(140) * (rng.chance(0.5) ? -1 : 1)),
                         ref::round_to(ref::Dtype::bf16, tiny_or_normal(140)),
                         static_cast<float>(tiny_or_normal(150)) * (rng.chance(0.5) ? 1.0f : 300.0f)};
    const float r = ref::certified_backward_fp32(e);
    if (!involves_subnormal(e, r)) continue;
    ++involved;
    ASSERT_TRUE(may_involve_subnormal(e, r)) << ref::hex(e.gc) << " " << ref::hex(e.gs) << " " << ref::hex(e.t);
  }
  EXPECT_GT(involved, 10000);
}

TEST(Tolerance, FlushedResultIsAcceptedWhereTheAllowanceReachesBelowTheSmallestNormal) {
  // An honest float32 evaluation lands below 2^-126 although the exact result lies just above
  // it (two products near 2^-112 that cancel); -ftz=true then returns zero. Each of these was
  // judged far over the allowance when only a correctly rounded subnormal result was flushed.
  struct Case {
    ref::Dtype d;
    ref::Element e;
  };
  const Case cases[] = {
      {ref::Dtype::fp32, {0x1.d4928p-112, 0x1p-112, 0x1p-1f}},
      {ref::Dtype::bf16, {0x1.48p-113, 0x1p-113, 0x1.53477p-1f}},
      {ref::Dtype::bf16, {0x1.32p-113, 0x1.02p-113, 0x1.669d3ap-1f}},
      {ref::Dtype::fp32, {0x1.cb9d38p-114, 0x1.62181ap-113, 0x1.fd774p-1f}},
      {ref::Dtype::fp32, {0x1.1c2f96p-118, 0x1.102e32p-118, 0x1.85c6bcp-1f}},  // sin, cos one float off, no FMA
  };
  for (const Case& c : cases) {
    const float r = ref::certified_backward_fp32(c.e);
    EXPECT_GE(std::fabs(r), 0x1p-126f) << ref::hex(c.e.gc);  // the reference itself is normal
    for (float zero : {0.0f, -0.0f}) {
      const Metrics m = judge_one(c.d, c.e, zero);
      EXPECT_TRUE(m.passes(Tier::float32_bound)) << ref::hex(c.e.gc) << " " << m.over[0];
      EXPECT_EQ(m.subnormal_modes[flush_result], 1) << ref::hex(c.e.gc);
      EXPECT_FALSE(judge_one(c.d, c.e, zero, Subnormals::ieee).passes(Tier::float32_bound)) << ref::hex(c.e.gc);
    }
    // The honest evaluations themselves pass, IEEE and flushing everything.
    for (unsigned flush : {0u, unsigned(flush_angle | flush_sin_term | flush_cos_term | flush_result)})
      EXPECT_TRUE(judge_one(c.d, c.e, kernel(c.e, flush)).passes(Tier::float32_bound)) << ref::hex(c.e.gc) << " " << flush_mask_name(flush);
  }
  // The first case as the issue measured it: IEEE gives 0x1.ff8p-127 with exact sin and cos.
  EXPECT_EQ(kernel({0x1.d4928p-112, 0x1p-112, 0x1p-1f}), 0x1.ff8p-127f);
}

TEST(Tolerance, FlushedResultIsRefusedWhereTheAllowanceStaysAboveTheSmallestNormal) {
  // The result window's edge: a normal reference whose allowance just fails to reach below
  // 2^-126 admits no zero; one float lower (the allowance reaching below) admits it.
  // gs alone (gc = 0, t = 2^-30: cos t rounds to 1), so ref = gs and S = |gs cos t|.
  auto element = [](float g) { return ref::Element{0.0, g, 0x1p-30f}; };
  auto zero_offered = [](const ref::Element& e) {
    for (const FlushedProblem& f : flushed_problems(e))
      if (f.mask & flush_result) return true;
    return false;
  };
  float lo = 0x1p-126f;
  while (zero_offered(element(lo))) lo = std::nextafter(lo, 1.0f);  // the first normal ref outside the window
  ASSERT_EQ(ref::certified_backward_fp32(element(lo)), lo);
  EXPECT_FALSE(judge_one(ref::Dtype::fp32, element(lo), 0.0f).passes(Tier::float32_bound)) << ref::hex(lo);
  const float below = std::nextafter(lo, 0.0f);
  EXPECT_TRUE(judge_one(ref::Dtype::fp32, element(below), 0.0f).passes(Tier::float32_bound)) << ref::hex(below);
  EXPECT_LE(core::result_window_margin(below, ref::condition_scale(element(below)), 0, false), 0);
  EXPECT_GT(core::result_window_margin(lo, ref::condition_scale(element(lo)), 0, false), 0);
  // About 7u above 2^-126: the window is c u S + u |ref| (c = 6 + ...), every product normal.
  EXPECT_GT(lo, 0x1p-126 * (1 + 7 * 0x1p-24)) << ref::hex(lo);
  EXPECT_LT(lo, 0x1p-126 * (1 + 10 * 0x1p-24)) << ref::hex(lo);
}

TEST(Tolerance, ProductWindowIsTheProvenOne) {
  // A product is treated as possibly subnormal only within the window derived from the bound
  // (float32_bound.hpp: 2^-126 (1 + ~5u)), not the old 2^-20 relative. The element that
  // `rope2d eval 0x1.303ab2p-126 0 1.0 --grad-dtype fp32` showed: its product lies 2^-21.2
  // above 2^-126, where no honest evaluation flushes it, and its result is as far above.
  EXPECT_GT(core::product_window, 0x1p-126 * (1 + 5 * 0x1p-24));
  EXPECT_LT(core::product_window, 0x1p-126 * (1 + 6 * 0x1p-24));
  const ref::Element e{0x1.303ab2p-126, 0.0, 1.0f};
  EXPECT_TRUE(flushed_problems(e).empty());
  EXPECT_FALSE(judge_one(ref::Dtype::fp32, e, 0.0f).passes(Tier::float32_bound));
  // At the window's edge, each side (the product's double value against the window).
  const double s1 = std::sin(1.0);
  float g = static_cast<float>(core::product_window / s1);
  while (std::fabs(static_cast<double>(g) * s1) > core::product_window) g = std::nextafter(g, 0.0f);
  EXPECT_TRUE(core::product_may_be_subnormal(g, s1));
  EXPECT_FALSE(core::product_may_be_subnormal(std::nextafter(g, 1.0f), s1));
}
