// The GPU comparison's host twin (gpu_check.hpp: the device pass's per-element code run on
// the CPU, then settle()) against the CPU judge (metrics.cpp's compare()) on the same inputs:
// every regime, the special cross product, every grad dtype, outputs of honest, flushing,
// perturbed and defective kernels. Also: what the pass leaves to the CPU, the deferred list's
// overflow, and the tolerance numbers shared with the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "../src/judge/gpu_check/element.hpp"
#include "gpu_check_compare.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/model/tolerance_core.hpp"

using namespace rope2d::verify;
using namespace rope2d::verify::compare_test;

TEST(GpuCheckHost, SameMetricsAsTheCpuJudgeOnEveryRegimeAndDtype) {
  std::int64_t deferred = 0, total = 0;
  for_each_output(31, 6000, [&](const ProblemSpec& s, const Problem& p, const Expected& x, int kind, const std::vector<float>& out) {
    for (Tier gate : {Tier::float32_bound, Tier::solexecbench}) {
      const Metrics want = compare(p, x, out.data(), gate, 10);
      const Metrics got = host_compare(p, out.data(), gate, 10);
      expect_same_metrics(want, got, s.name() + " kernel " + std::to_string(kind) + " gate " + std::string(name(gate)));
    }
    CheckOptions o;
    o.max_deferred = p.n();
    const CheckPass pass = host_check(p.gc.data(), p.gs.data(), p.theta.data(), out.data(), p.n(), s.grad_dtype, o);
    deferred += pass.deferred_total;
    total += p.n();
  });
  if (::testing::Test::HasFailure()) return;
  // The point of the pass: the CPU sees a small share (special and defective elements).
  EXPECT_LT(deferred, total / 4) << deferred << " of " << total << " deferred";
  EXPECT_GT(deferred, 0);
}

TEST(GpuCheckHost, SettledVerdictsDoNotDependOnTheLastBitsOfSinCos) {
  // The device judges with CUDA's sincos (2 ulps from the correctly rounded result), the host
  // with glibc's (1 ulp): s and c may differ by 3 ulps between the two. Whatever either side
  // settles must then be the same on the other, or be sent to the CPU there: every tier, the
  // reference, the histogram bin, the subnormal evidence; the errors to rounding.
  constexpr int shift = 4;  // ulps of s and c, each way
  std::int64_t settled = 0, deferred_by_shift = 0;
  for_each_output(33, 8192, [&](const ProblemSpec& s, const Problem& p, const Expected&, int kind, const std::vector<float>& out) {
    for (std::int64_t i = 0; i < p.n(); ++i) {
      const rope2d::ref::Element e = p.element(i);
      double sn, cs;
      sincos(static_cast<double>(e.t), &sn, &cs);
      const gpucheck::Verdict v = gpucheck::judge_with(e.gc, e.gs, e.t, out[i], sn, cs);
      if (v.defer) continue;
      ++settled;
      for (auto [ds, dc] : {std::pair{shift, 0}, {-shift, 0}, {0, shift}, {0, -shift}, {shift, shift}, {-shift, -shift},
                            {shift, -shift}, {-shift, shift}}) {
        double s2 = sn, c2 = cs;
        for (int k = 0; k < std::abs(ds); ++k) s2 = std::nextafter(s2, ds > 0 ? INFINITY : -INFINITY);
        for (int k = 0; k < std::abs(dc); ++k) c2 = std::nextafter(c2, dc > 0 ? INFINITY : -INFINITY);
        const gpucheck::Verdict w = gpucheck::judge_with(e.gc, e.gs, e.t, out[i], s2, c2);
        if (w.defer) {
          ++deferred_by_shift;
          continue;
        }
        const std::string what = s.name() + " kernel " + std::to_string(kind) + " element " + std::to_string(i) + " shift " +
                                 std::to_string(ds) + "," + std::to_string(dc);
        ASSERT_EQ(w.bit_equal, v.bit_equal) << what;
        ASSERT_EQ(w.correctly_rounded, v.correctly_rounded) << what;
        ASSERT_EQ(w.subnormal_ieee, v.subnormal_ieee) << what;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(w.ref), std::bit_cast<std::uint32_t>(v.ref)) << what;
        ASSERT_EQ(w.over, v.over) << what;
        ASSERT_EQ(core::error_bin(w.scaled), core::error_bin(v.scaled)) << what << ": " << v.scaled << " vs " << w.scaled;
        ASSERT_TRUE(close(w.scaled, v.scaled)) << what;
        ASSERT_TRUE(close(w.ulps, v.ulps)) << what;
      }
    }
  });
  EXPECT_GT(settled, 0);
  EXPECT_LT(deferred_by_shift, settled / 100) << "of " << settled << " settled elements";
}

TEST(GpuCheckHost, HistogramBinsAreExactAtTheirEdges) {
  // Bin 1 up to 2^-8, bin k in (2^(k-10), 2^(k-9)], bin 19 beyond 2^9.
  EXPECT_EQ(core::error_bin(0), 0);
  EXPECT_EQ(core::error_bin(0x1p-30), 1);
  EXPECT_EQ(core::error_bin(0x1p-8), 1);
  EXPECT_EQ(core::error_bin(std::nextafter(0x1p-8, 1.0)), 2);
  EXPECT_EQ(core::error_bin(1.0), 9);
  EXPECT_EQ(core::error_bin(std::nextafter(1.0, 2.0)), 10);
  EXPECT_EQ(core::error_bin(0x1p8), 17);
  EXPECT_EQ(core::error_bin(0x1p9), 18);
  EXPECT_EQ(core::error_bin(std::nextafter(0x1p9, 1e3)), 19);
  EXPECT_EQ(core::error_bin(INFINITY), 19);
  EXPECT_EQ(core::error_bin(NAN), 19);
  for (int e = -1074; e <= 1023; ++e) {  // every power of two, and its neighbours
    const double x = std::ldexp(1.0, e);
    const int want = std::clamp(e + 9, 1, 19);
    ASSERT_EQ(core::error_bin(x), want) << e;
    ASSERT_EQ(core::error_bin(std::nextafter(x, INFINITY)), std::clamp(e + 10, 1, 19)) << e;
  }
  // A scaled error at an edge is left to the CPU judge: gs = 1, gc = 0 and t = 2^-30 (cos t
  // rounds to 1), one ulp over the reference 1: exactly 2 units of 2^-24 S.
  const float one_up = std::nextafter(1.0f, 2.0f), three_up = std::nextafter(std::nextafter(one_up, 2.0f), 2.0f);
  EXPECT_TRUE(gpucheck::judge(0.0, 1.0, 0x1p-30f, one_up).defer);
  const gpucheck::Verdict v = gpucheck::judge(0.0, 1.0, 0x1p-30f, three_up);
  ASSERT_FALSE(v.defer);
  EXPECT_EQ(v.scaled, 6.0);
}

TEST(GpuCheckHost, IeeeSubnormalJudgingAgrees) {
  for (const ProblemSpec& s : check_problems(32, 3000)) {
    if (s.set != "subnormal" && s.set != "special") continue;
    const Problem p = make_problem(s);
    const Expected x = compute_expected(p);
    const std::vector<float> out = kernel_output(p, x, 2);
    expect_same_metrics(compare(p, x, out.data(), Tier::float32_bound, 10, Subnormals::ieee),
                        host_compare(p, out.data(), Tier::float32_bound, 10, Subnormals::ieee), s.name());
  }
}

TEST(GpuCheckHost, WhatIsLeftToTheCpu) {
  // One element each: ordinary (settled), NaN angle met by NaN (settled, and counted for
  // SOL-ExecBench's rules), t = 0 (special), a NaN output (non-finite), a subnormal angle with
  // a flushed result that fails IEEE.
  const float ts[] = {1.5f, NAN, 0.0f, 2.5f, 0x1p-140f};
  const float gcs[] = {0.75f, 1.0f, 1.0f, 1.0f, 1.0f};
  const float gss[] = {-1.25f, 1.0f, 1.0f, 1.0f, 0.0f};
  const float outs[] = {static_cast<float>(-0.75 * std::sin(1.5) - 1.25 * std::cos(1.5)), NAN, 1.0f, NAN, -0.0f};
  CheckOptions o;
  const CheckPass pass = host_check(gcs, gss, ts, outs, 5, rope2d::ref::Dtype::fp32, o);
  EXPECT_EQ(pass.total.count, 2);
  EXPECT_EQ(pass.total.nan, 1);
  ASSERT_EQ(pass.deferred.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(pass.deferred[k].index, k + 2);
  EXPECT_TRUE(pass.deferred_complete);
  o.max_deferred = 2;
  o.index_base = 100;
  const CheckPass short_list = host_check(gcs, gss, ts, outs, 5, rope2d::ref::Dtype::fp32, o);
  EXPECT_FALSE(short_list.deferred_complete);
  EXPECT_EQ(short_list.deferred_total, 3);
  EXPECT_EQ(short_list.deferred[0].index, 102);
  EXPECT_THROW(settle(short_list, [](std::int64_t) { return rope2d::ref::Element{}; }, Tier::float32_bound), std::logic_error);
}

TEST(GpuCheckHost, ToleranceNumbersAreTheTable) {
  for (Tier t : all_tiers) {
    const core::TierCoeffs c = core::tier_coeffs(t);
    EXPECT_EQ(c.scale_coeff, rule(t).scale_coeff) << name(t);
    EXPECT_EQ(c.ref_coeff, rule(t).ref_coeff) << name(t);
    EXPECT_EQ(c.atol, rule(t).atol) << name(t);
    EXPECT_EQ(c.bound_based, rule(t).bound_based) << name(t);
    EXPECT_EQ(core::allowance(t, 0.5, 2.0, 1e-3), allowance(t, 0.5, 2.0, 1e-3));
  }
  // float32-bound: c = 6 + 19u + ... (FLOAT32_BOUND.md), d = u, and against the correctly
  // rounded reference d (1 + u) + u = 2u + u^2.
  EXPECT_NEAR(core::tier_coeffs(Tier::float32_bound).scale_coeff / 0x1p-24, 6.0, 1e-5);
  EXPECT_EQ(core::tier_coeffs(Tier::float32_bound).ref_coeff, 0x1p-23 + 0x1p-48);
}

TEST(GpuCheckHost, CanaryIsJudgedRightAndAFlushingJudgeIsCaught) {
  // The canary every device pass checks first, on its host twin: a sound build judges it right.
  EXPECT_EQ(gpucheck::canary_faults(), 0u);
  // What a judge built with flush-to-zero sees: the subnormal grad decoded as 0 (a special
  // case, deferred), the subnormal reference decided as 0, the subnormal output widened as 0.
  const float t = 0x1p-20f, ref = std::bit_cast<float>(gpucheck::canary_ref_bits);
  const float step = std::bit_cast<float>(gpucheck::canary_ref_bits + 1);
  const double gs = std::bit_cast<float>(gpucheck::canary_gs_bits);
  const gpucheck::Verdict same = gpucheck::judge(0.0, gs, t, ref), up = gpucheck::judge(0.0, gs, t, step);
  ASSERT_EQ(gpucheck::canary_faults_of(same, up), 0u);
  EXPECT_NE(gpucheck::canary_faults_of(gpucheck::judge(0.0, 0.0, t, 0.0f), up), 0u);
  gpucheck::Verdict zero_ref = same;
  zero_ref.ref = 0.0f;
  zero_ref.bit_equal = false;
  EXPECT_EQ(gpucheck::canary_faults_of(zero_ref, up), unsigned(gpucheck::canary_ref_wrong));
  EXPECT_EQ(gpucheck::canary_faults_of(same, gpucheck::judge(0.0, gs, t, 0.0f)), unsigned(gpucheck::canary_step_wrong));
}
