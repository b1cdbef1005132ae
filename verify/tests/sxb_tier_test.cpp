// The solexecbench tier predicts SOL-ExecBench's verdict (correctness.py): NaN or Inf anywhere
// fails, matched or not; the all-zero test on float32 norms; float32 arithmetic at the
// threshold; each round on its own. Checked on hand-made cases with known answers and
// against the whole-tensor port (sxb_rules.hpp) over perturbed outputs of every regime.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "rope2d/ref/floats.hpp"
#include "rope2d/ref/random.hpp"
#include "rope2d/ref/regimes.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/sxb_rules.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

Problem regime_problem(ref::Regime r, std::uint64_t seed, ref::Dtype d = ref::Dtype::bf16) {
  ProblemSpec s;
  s.set = std::string(ref::name(r));
  s.source = AngleSource::regime;
  s.regime = r;
  s.grad_dtype = d;
  s.elements = 4096;
  s.seed = seed;
  return make_problem(s);
}

Metrics judged(const Problem& p, const Expected& x, const std::vector<float>& out) {
  return compare(p, x, out.data(), Tier::float32_bound);
}

// correctness.py's element test as x86-64 evaluates float32 (SSE, no fused multiply-add):
// volatile keeps each operation rounded to float on its own.
bool float32_over(float got, float ref) {
  const volatile float scaled = 1e-5f * std::fabs(ref);
  const volatile float bound = 1e-5f + scaled;
  const volatile float diff = std::fabs(got - ref);
  return diff > bound || !std::isfinite(diff);
}

}  // namespace

TEST(SxbTier, MatchedNanAndInfFailAsTheHarnessFailsThem) {
  // The nonfinite regime's exact result holds NaN and Inf; an output equal to it bit for bit
  // passes our tiers and fails SOL-ExecBench's (any NaN/Inf in either tensor, even matched).
  const Problem p = regime_problem(ref::Regime::nonfinite, 11);
  const Expected x = compute_expected(p);
  const Metrics m = judged(p, x, x.fp32);
  EXPECT_TRUE(m.passes(Tier::float32_bound));
  EXPECT_GT(m.sxb.nonfinite, 0);
  EXPECT_FALSE(m.passes(Tier::solexecbench));
  EXPECT_TRUE(sxb_error_stats(x.fp32, x.fp32).exceeds);
  EXPECT_NE(m.sxb_disagreement(Tier::float32_bound).find("NaN/Inf"), std::string::npos);
}

TEST(SxbTier, NearOverflowIsJudgedAsTheHarnessJudgesIt) {
  // Exact results at and beyond FLT_MAX: an honest float32 kernel may return Inf, which our
  // bound accepts and SOL-ExecBench never does.
  const Problem p = regime_problem(ref::Regime::near_overflow, 12, ref::Dtype::fp32);
  const Expected x = compute_expected(p);
  std::vector<float> out = x.fp32;
  bool any_inf = false;
  for (float& v : out)
    if (std::fabs(v) == std::numeric_limits<float>::max()) v = std::copysign(INFINITY, v), any_inf = true;
  ASSERT_TRUE(any_inf);
  const Metrics m = judged(p, x, out);
  EXPECT_EQ(m.passes(Tier::solexecbench), !sxb_error_stats(out, x.fp32).exceeds);
  EXPECT_FALSE(m.passes(Tier::solexecbench));
}

TEST(SxbTier, AllZeroIsTheNormTest) {
  // A reference of values too small to survive squaring in float32 has norm zero: an all-zero
  // output is not trapped, and passes the element test (0x1p-75 squared is 2^-150, rounds to 0).
  const std::vector<ref::Element> tiny(64, ref::Element{0.0, 0x1p-76, 0.0f});  // result gs cos 0 = 2^-76
  const Problem p = problem_of("tiny", ref::Dtype::fp32, tiny);
  const Expected x = compute_expected(p);
  ASSERT_EQ(x.fp32[0], 0x1p-76f);
  const std::vector<float> zeros(p.n(), 0.0f);
  const Metrics m = judged(p, x, zeros);
  EXPECT_FALSE(m.sxb.all_zero);
  EXPECT_TRUE(m.passes(Tier::solexecbench));
  EXPECT_FALSE(sxb_error_stats(zeros, x.fp32).exceeds);
  // One reference value that survives squaring: the same zeros are trapped.
  std::vector<ref::Element> one = tiny;
  one[5] = {0.0, 0x1p-60, 0.0f};  // above 2^-75
  const Problem q = problem_of("one", ref::Dtype::fp32, one);
  const Expected y = compute_expected(q);
  const Metrics n = judged(q, y, zeros);
  EXPECT_TRUE(n.sxb.all_zero);
  EXPECT_FALSE(n.passes(Tier::solexecbench));
  EXPECT_TRUE(sxb_error_stats(zeros, y.fp32).all_zero);
}

TEST(SxbTier, ThresholdInFloat32) {
  // Around the threshold of references of every binade, the element test is the float32 one,
  // and it differs from a double-precision reading of 1e-5 + 1e-5 |ref| (the old rule) on some.
  ref::Random rng(5);
  int differs_from_double = 0, checked = 0;
  for (int k = 0; k < 20000; ++k) {
    const float r = std::ldexp(static_cast<float>(1 + rng.uniform()), static_cast<int>(rng.uniform() * 60) - 40) * (k % 2 ? -1 : 1);
    const float edge = r + static_cast<float>(1e-5 + 1e-5 * std::fabs(r));
    float got = edge;
    for (int i = 0; i < 3; ++i) got = std::nextafter(got, -INFINITY);
    for (int i = 0; i < 7; ++i, got = std::nextafter(got, INFINITY)) {
      ++checked;
      ASSERT_EQ(core::sxb_over(got, r), float32_over(got, r)) << ref::hex(got) << " " << ref::hex(r);
      differs_from_double += core::sxb_over(got, r) != (std::fabs(static_cast<double>(got) - r) > 1e-5 + 1e-5 * std::fabs(r));
    }
  }
  EXPECT_GT(differs_from_double, 0) << "of " << checked;
  // The matched ratio as correctness.py computes it: exactly 1% over passes, 1.5% fails.
  const std::vector<ref::Element> es(200, ref::Element{0.0, 1.0, 0.0f});  // result 1
  const Problem p = problem_of("one", ref::Dtype::fp32, es);
  const Expected x = compute_expected(p);
  std::vector<float> out(p.n(), 1.0f);
  for (int k = 0; k < 3; ++k) out[k] = 1.5f;
  EXPECT_FALSE(judged(p, x, out).passes(Tier::solexecbench));
  out[2] = 1.0f;
  EXPECT_TRUE(judged(p, x, out).passes(Tier::solexecbench));
  EXPECT_FALSE(sxb_error_stats(out, x.fp32).exceeds);
}

TEST(SxbTier, EachRoundOnItsOwn) {
  // 2% over in one round and none in the next: 1% over the two, which SOL-ExecBench never
  // sees; it judges each round of fresh inputs apart and fails the first.
  const std::vector<ref::Element> es(100, ref::Element{0.0, 1.0, 0.0f});
  const Problem p = problem_of("one", ref::Dtype::fp32, es);
  const Expected x = compute_expected(p);
  std::vector<float> bad(p.n(), 1.0f);
  bad[0] = bad[1] = 2.0f;
  Metrics a = judged(p, x, bad), b = judged(p, x, x.fp32);
  Metrics merged = a;
  merged.merge(b, 10);
  EXPECT_TRUE(merged.passes(Tier::solexecbench));  // as one comparison: 1% over
  a.close_round();
  b.close_round();
  a.merge(b, 10);
  EXPECT_EQ(a.sxb.rounds, 2);
  EXPECT_EQ(a.failed_rounds[core::sxb_tier], 1);
  EXPECT_FALSE(a.passes(Tier::solexecbench));
}

TEST(SxbTier, AgreesWithTheWholeTensorRulesOnEveryRegime) {
  // Outputs a few ulps off, some elements far off, a NaN or a zeroed output: the tier's
  // verdict and reported errors are the port's, set by set.
  int fails = 0, passes = 0;
  for (ref::Regime r : ref::all_regimes)
    for (int variant = 0; variant < 5; ++variant) {
      const Problem p = regime_problem(r, 100 + variant);
      const Expected x = compute_expected(p);
      std::vector<float> out = x.fp32;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (variant == 1) out[i] = std::nextafter(out[i], INFINITY);
        if (variant == 2 && i % 64 == 0) out[i] = out[i] * 1.001f + 1e-4f;  // 1.6% of elements far off
        if (variant == 3 && i % 128 == 0) out[i] = out[i] * 1.001f + 1e-4f;  // 0.8%
        if (variant == 4) out[i] = i == 7 ? NAN : out[i];
      }
      const Metrics m = judged(p, x, out);
      const SxbStats s = sxb_error_stats(out, x.fp32);
      const std::string what = p.spec.name() + " variant " + std::to_string(variant);
      EXPECT_EQ(m.passes(Tier::solexecbench), !s.exceeds) << what;
      if (!s.has_nan && !s.has_inf && !s.all_zero) {
        EXPECT_EQ(m.sxb.max_abs, s.max_abs) << what;
        EXPECT_EQ(m.sxb.max_rel, s.max_rel) << what;
        EXPECT_EQ(m.over[core::sxb_tier], s.over) << what;
      }
      (s.exceeds ? fails : passes)++;
    }
  EXPECT_GT(fails, 5);  // both verdicts are exercised
  EXPECT_GT(passes, 5);
}

TEST(SxbTier, ANewRowWithItsRulesJudgesAsItDoes) {
  // Rules as data: a row that is not the solexecbench tier (another name, another tier's slot)
  // but carries its numbers and rule kinds gives every element and set verdict that tier gives,
  // with nothing testing which tier it is; the same row with one rule kind or number changed
  // judges otherwise, so the kinds, not the name, decide.
  TierRule copy = rule(Tier::solexecbench);
  copy.tier = Tier::float32_bound;
  copy.name = "official-copy";
  copy.old_name = "";
  const int k = core::sxb_tier;
  int element_passes = 0, element_fails = 0, set_passes = 0, set_fails = 0, nan_matched_loose = 0;
  TierRule loose = copy;  // the bound's rules for non-finite values and the element test
  loose.rules.nonfinite = NonFinite::must_match;
  loose.rules.element = ElementTest::allowance;
  for (ref::Regime r : ref::all_regimes)
    for (int variant = 0; variant < 4; ++variant) {
      const Problem p = regime_problem(r, 300 + variant, variant % 2 ? ref::Dtype::fp32 : ref::Dtype::bf16);
      const Expected x = compute_expected(p);
      std::vector<float> out = x.fp32;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (variant == 1) out[i] = std::nextafter(out[i], INFINITY);
        if (variant == 2 && i % 64 == 0) out[i] = out[i] * 1.001f + 1e-4f;
        if (variant == 3 && i % 97 == 0) out[i] = i % 2 ? NAN : INFINITY;
      }
      const std::string what = p.spec.name() + " variant " + std::to_string(variant);
      for (std::int64_t i = 0; i < p.n(); ++i) {
        const ref::Element e = p.element(i);
        const bool official = within(Tier::solexecbench, e, x.fp32[i], x.scale[i], out[i]);
        ASSERT_EQ(within(copy, e, x.fp32[i], x.scale[i], out[i]), official) << what << " i=" << i;
        (official ? element_passes : element_fails)++;
        nan_matched_loose += !official && std::isnan(out[i]) && std::isnan(x.fp32[i]) && within(loose, e, x.fp32[i], x.scale[i], out[i]);
      }
      // Two rounds, the second the reference's own bits; each round's verdict under the copy's
      // rules, then the merged set's, equal to the official tier's.
      Metrics a = judged(p, x, out), b = judged(p, x, x.fp32);
      const std::int64_t failed = !a.round_passes(copy, a.over[k]) + !b.round_passes(copy, b.over[k]);
      a.close_round();
      b.close_round();
      a.merge(b, 10);
      EXPECT_EQ(failed, a.failed_rounds[k]) << what;
      EXPECT_EQ(a.verdict(copy, a.over[k], failed), a.passes(Tier::solexecbench)) << what;
      (a.passes(Tier::solexecbench) ? set_passes : set_fails)++;
    }
  EXPECT_GT(element_passes, 0);
  EXPECT_GT(element_fails, 0);
  EXPECT_GT(set_passes, 5);  // both verdicts exercised
  EXPECT_GT(set_fails, 5);
  EXPECT_GT(nan_matched_loose, 0) << "a matched NaN passes under NonFinite::must_match";
  // The ratio is the row's: 2% over fails the official 0.99 and passes a copy asking 0.95;
  // judged as one merged comparison under Rounds::merged, a round of 2% and one of 0% pass 0.99.
  const std::vector<ref::Element> es(100, ref::Element{0.0, 1.0, 0.0f});
  const Problem p = problem_of("one", ref::Dtype::fp32, es);
  const Expected x = compute_expected(p);
  std::vector<float> bad(p.n(), 1.0f);
  bad[0] = bad[1] = 2.0f;
  Metrics a = judged(p, x, bad), b = judged(p, x, x.fp32);
  TierRule lenient = copy, merged = copy;
  lenient.ratio = 0.95;
  merged.rules.rounds = Rounds::merged;
  EXPECT_FALSE(a.round_passes(copy, a.over[k]));
  EXPECT_TRUE(a.round_passes(lenient, a.over[k]));
  const std::int64_t failed = !a.round_passes(copy, a.over[k]) + !b.round_passes(copy, b.over[k]);
  a.close_round();
  b.close_round();
  a.merge(b, 10);
  EXPECT_FALSE(a.verdict(copy, a.over[k], failed));
  EXPECT_TRUE(a.verdict(merged, a.over[k], failed));
}
