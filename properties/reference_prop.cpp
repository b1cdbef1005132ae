// Properties of the reference (CPU): correct rounding against an independent 1024-bit oracle,
// the certified double path equal bit for bit to the MPFR path, and the identities the exact
// backward obeys. On failure RapidCheck prints the minimal case and a reproduce= string.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>

#include "generators.hpp"
#include "rope2d/testing/oracle.hpp"
#include "rope2d/ref/derivative.hpp"

using namespace rope2d;
using ref::Dtype;

namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

}  // namespace

RC_GTEST_PROP(Reference, CorrectlyRoundedToEveryDtype, ()) {
  const auto c = *gen::finite_case();
  RC_TAG(c.regime, ref::name(c.dtype));
  thread_local test::Oracle oracle;
  const ref::Rounded r = ref::exact_backward(c.e);
  if (ref::is_special(c.e)) {
    RC_CLASSIFY(true, "special");
    RC_ASSERT(bits(r.fp32) == bits(ref::round_to(Dtype::fp32, *ref::special_value(c.e))));
    return;
  }
  for (Dtype d : ref::all_dtypes) RC_ASSERT(bits(r.in(d)) == bits(oracle.rounded(c.e, d)));
}

// The special grads against the special angles (the lists the verifier crosses): the two
// reference paths agree, NaN for NaN.
RC_GTEST_PROP(Reference, CertifiedPathEqualsMpfrPathOnSpecialValues, ()) {
  const auto c = *gen::special_case();
  RC_TAG(ref::name(c.dtype), std::isfinite(c.e.t) ? "finite angle" : "non-finite angle");
  const ref::Rounded exact = ref::exact_backward(c.e);
  const ref::Rounded fast = ref::certified_backward(c.e);
  for (Dtype d : ref::all_dtypes) {
    if (std::isnan(exact.in(d))) RC_ASSERT(std::isnan(fast.in(d)));
    else RC_ASSERT(bits(fast.in(d)) == bits(exact.in(d)));
  }
}

RC_GTEST_PROP(Reference, CertifiedPathEqualsMpfrPathBitForBit, ()) {
  const auto c = *gen::finite_case();
  RC_TAG(c.regime);
  const ref::Rounded exact = ref::exact_backward(c.e);
  const ref::Rounded fast = ref::certified_backward(c.e);
  for (Dtype d : ref::all_dtypes) RC_ASSERT(bits(fast.in(d)) == bits(exact.in(d)));
  RC_ASSERT(std::bit_cast<std::uint32_t>(ref::certified_backward_fp32(c.e)) ==
            std::bit_cast<std::uint32_t>(static_cast<float>(exact.fp32)));
}

RC_GTEST_PROP(Reference, ScalingByPowersOfTwoIsExact, ()) {
  const auto c = *gen::with_angle("layout", gen::angle_layout());
  const int k = *rc::gen::inRange(-20, 21);
  const ref::Element scaled{std::ldexp(c.e.gc, k), std::ldexp(c.e.gs, k), c.e.t};
  const double a = ref::exact_backward(c.e).fp32, b = ref::exact_backward(scaled).fp32;
  // Exact unless a result leaves float32's normal range (moderate grads keep it inside).
  RC_PRE(std::fabs(a) > 0x1p-100 && std::fabs(a) < 0x1p100);
  RC_ASSERT(b == std::ldexp(a, k));
}

RC_GTEST_PROP(Reference, OneGradZeroLeavesOneTerm, ()) {
  const auto c = *gen::finite_case();
  RC_PRE(c.e.t != 0.0f);
  thread_local test::Oracle oracle;
  const ref::Element only_sin{c.e.gc, 0.0, c.e.t}, only_cos{0.0, c.e.gs, c.e.t};
  RC_PRE(c.e.gc != 0.0 && c.e.gs != 0.0);
  // gs = 0: the result is -gc sin t rounded; gc = 0: gs cos t rounded.
  RC_ASSERT(bits(ref::exact_backward(only_sin).fp32) == bits(oracle.rounded(only_sin, Dtype::fp32)));
  RC_ASSERT(bits(ref::exact_backward(only_cos).fp32) == bits(oracle.rounded(only_cos, Dtype::fp32)));
  const double s = std::sin(static_cast<double>(c.e.t));
  RC_ASSERT(std::signbit(ref::exact_backward(only_sin).fp32) == std::signbit(-c.e.gc * s));
}

RC_GTEST_PROP(Reference, BoundedByHypot, ()) {
  const auto c = *gen::finite_case();
  // |gs cos t - gc sin t| <= hypot(gc, gs), and rounding is monotonic, so the rounded result is
  // at most the hypot rounded upward.
  const double h = std::hypot(c.e.gc, c.e.gs) * (1 + 0x1p-50);
  RC_ASSERT(std::fabs(ref::exact_backward(c.e).fp32) <= static_cast<double>(std::nextafter(static_cast<float>(h), INFINITY)));
}

RC_GTEST_PROP(Reference, OddSymmetry, ()) {
  // f(-gc, gs, -t) = -(-gc) sin(-t) + gs cos(-t) = f(gc, gs, t).
  const auto c = *gen::finite_case();
  const ref::Element mirrored{-c.e.gc, c.e.gs, -c.e.t};
  const ref::Rounded a = ref::exact_backward(c.e), b = ref::exact_backward(mirrored);
  RC_PRE(a.fp32 != 0.0);  // the sign of an exact zero follows IEEE's sum rule, not the symmetry
  for (Dtype d : ref::all_dtypes) RC_ASSERT(bits(a.in(d)) == bits(b.in(d)));
}

RC_GTEST_PROP(Reference, AnalyticGradientIsTheDerivative, ()) {
  const auto c = *gen::finite_case();
  RC_TAG(c.regime);
  RC_ASSERT(ref::autodiff_agreement(c.e).holds());
  RC_ASSERT(ref::finite_difference_agreement(c.e).holds());
}

RC_GTEST_PROP(Layouts, PositionsFollowTheModelsRules, (std::uint64_t seed)) {
  const int seq_len = *rc::gen::inRange(1, 20000);
  const ref::Layout layout = ref::random_layout(seed, {.batch = 2, .seq_len = seq_len, .max_image_side = 128});
  for (const auto& seq : layout.batch) {
    const auto pos = ref::positions(seq);
    RC_ASSERT(static_cast<std::int64_t>(pos.size()) == seq_len);
    std::int64_t start = 0;
    for (const auto& s : seq) {
      for (std::int64_t i = 0; i < s.tokens(); ++i) {
        const ref::Position p = pos[start + i];
        switch (s.kind) {
          case ref::Segment::Kind::text: RC_ASSERT(p.y == start + i && p.x == start + i); break;
          case ref::Segment::Kind::marker: RC_ASSERT(p.y == s.pos && p.x == s.pos && s.pos < start + i); break;
          case ref::Segment::Kind::image: {
            const std::int64_t r = i / s.w, col = i % s.w, hw = std::int64_t{s.h} * s.w;
            RC_ASSERT(p.y == start + (hw - s.h) / 2 + r);
            RC_ASSERT(p.x == start + (hw - s.w) / 2 + col);
            break;
          }
        }
      }
      start += s.tokens();
    }
  }
  RC_CLASSIFY(layout.batch[0].size() > 1, "mixed segments");
}
