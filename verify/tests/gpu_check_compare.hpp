// Shared by the GPU comparison's tests (host twin on the CPU, device pass on the GPU): the
// problems and outputs they judge, and the check that two Metrics report the same.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "rope2d/ref/floats.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/judge/worst.hpp"

namespace rope2d::verify::compare_test {

// Every regime, the special cross product and layout angles, in every grad dtype.
inline std::vector<ProblemSpec> check_problems(std::uint64_t seed, std::int64_t per_set) {
  std::vector<ProblemSpec> out;
  for (ref::Dtype d : ref::all_dtypes) {
    for (ref::Regime r : ref::all_regimes) {
      ProblemSpec s;
      s.set = std::string(ref::name(r));
      s.source = AngleSource::regime;
      s.regime = r;
      s.grad_dtype = d;
      s.elements = per_set;
      s.seed = name_seed(seed, s.name());
      out.push_back(s);
    }
    ProblemSpec s;
    s.set = "special";
    s.source = AngleSource::special;
    s.grad_dtype = d;
    s.elements = per_set;
    s.seed = name_seed(seed, s.name());
    out.push_back(s);
  }
  return out;
}

// The sweep's angles [lo, hi) as bit patterns with fp32 grads (gc, gs), as one problem.
inline Problem sweep_problem(std::uint64_t lo, std::uint64_t hi, float gc, float gs) {
  std::vector<ref::Element> elements;
  for (std::uint64_t b = lo; b < hi; ++b) elements.push_back({gc, gs, std::bit_cast<float>(static_cast<std::uint32_t>(b))});
  return problem_of("sweep", ref::Dtype::fp32, elements);
}

// Outputs of kinds of kernel (all from the problem, none from the reference's own code but
// kind 0): 0 the reference itself; 1 a float32 evaluation with glibc's sinf/cosf; 2 the same
// with subnormal angles and results flushed to zero; 3 the reference moved by -8..8 ulps;
// 4 kind 1 with defects (NaN, the poison, Inf, zero, sign flips) on some elements.
inline std::vector<float> kernel_output(const Problem& p, const Expected& x, int kind) {
  const std::int64_t n = p.n();
  std::vector<float> out(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const ref::Element e = p.element(i);
    float t = e.t;
    const bool flush = kind == 2;
    if (flush && std::fabs(t) < 0x1p-126f) t = std::copysign(0.0f, t);
    float f = -static_cast<float>(e.gc) * std::sin(t) + static_cast<float>(e.gs) * std::cos(t);
    if (flush && std::fabs(f) < 0x1p-126f) f = std::copysign(0.0f, f);
    if (kind == 0) f = x.fp32[i];
    if (kind == 3) {
      f = x.fp32[i];
      const int k = static_cast<int>((static_cast<std::uint64_t>(i) * 2654435761u >> 7) % 17) - 8;
      for (int j = 0; j < std::abs(k); ++j) f = std::nextafter(f, k > 0 ? INFINITY : -INFINITY);
    }
    if (kind == 4) switch (i % 97) {
        case 3: f = NAN; break;
        case 5: f = std::bit_cast<float>(poison_bits); break;
        case 7: f = INFINITY; break;
        case 11: f = 0.0f; break;
        case 13: f = -f; break;
        default: break;
      }
    out[i] = f;
  }
  return out;
}

// Calls f(spec, problem, expected, kind, output) for every problem of check_problems and every
// kind of kernel output, until a test failure.
template <class F>
void for_each_output(std::uint64_t seed, std::int64_t per_set, F&& f) {
  for (const ProblemSpec& s : check_problems(seed, per_set)) {
    const Problem p = make_problem(s);
    const Expected x = compute_expected(p);
    for (int kind = 0; kind < 5; ++kind) {
      f(s, p, x, kind, kernel_output(p, x, kind));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Equal, or within rel of each other (infinities equal, NaN matches NaN).
inline ::testing::AssertionResult close(double got, double want, double rel = 0x1p-40) {
  if (got == want || std::fabs(got - want) <= rel * std::fabs(want) || (std::isnan(got) && std::isnan(want)))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

// The same report: every count and verdict equal, max and histograms equal, RMS to rounding,
// the same failing elements and the same worst error.
inline void expect_same_metrics(const Metrics& want, const Metrics& got, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.correctly_rounded, want.correctly_rounded);
  EXPECT_EQ(got.nonfinite_mismatch, want.nonfinite_mismatch);
  EXPECT_EQ(got.poisoned, want.poisoned);
  EXPECT_EQ(got.all_zero, want.all_zero);
  EXPECT_EQ(got.sxb.nonfinite, want.sxb.nonfinite);
  EXPECT_EQ(got.sxb.all_zero, want.sxb.all_zero);
  EXPECT_EQ(got.sxb.nan, want.sxb.nan);
  EXPECT_EQ(got.sxb.max_abs, want.sxb.max_abs);
  EXPECT_EQ(got.sxb.max_rel, want.sxb.max_rel);
  EXPECT_EQ(got.over, want.over);
  EXPECT_EQ(got.over_ieee, want.over_ieee);
  EXPECT_EQ(got.subnormal_modes, want.subnormal_modes);
  EXPECT_EQ(got.subnormal_unexplained, want.subnormal_unexplained);
  EXPECT_EQ(got.overflow_accepted, want.overflow_accepted);
  EXPECT_EQ(got.histogram, want.histogram);
  for (Tier t : all_tiers) {
    EXPECT_EQ(got.passes(t, Subnormals::ieee), want.passes(t, Subnormals::ieee)) << name(t);
    EXPECT_EQ(got.passes(t, Subnormals::flush_allowed), want.passes(t, Subnormals::flush_allowed)) << name(t);
  }
  EXPECT_TRUE(close(got.max_scaled, want.max_scaled)) << "max";
  EXPECT_TRUE(close(got.max_ulp, want.max_ulp)) << "max ulp";
  EXPECT_TRUE(close(got.rms_scaled(), want.rms_scaled())) << "rms";
  for (std::size_t k = 0; k < want.max_by_angle.size(); ++k)
    EXPECT_TRUE(close(got.max_by_angle[k], want.max_by_angle[k])) << "angle bin " << k;
  ASSERT_EQ(got.worst.has_value(), want.worst.has_value());
  if (want.worst) {
    EXPECT_TRUE(close(got.worst->scaled_error, want.worst->scaled_error)) << "worst";
  }
  ASSERT_EQ(got.failures.size(), want.failures.size());
  for (std::size_t k = 0; k < want.failures.size(); ++k) {
    EXPECT_EQ(got.failures[k].index, want.failures[k].index);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got.failures[k].ref), std::bit_cast<std::uint32_t>(want.failures[k].ref));
  }
}

}  // namespace rope2d::verify::compare_test
