// The flushed problems of one element (see flush.hpp). A value may be flushed only if it is
// subnormal in the evaluation: the angle itself, a grad, a product (the exact product below
// the proven window 2^-126 (1 + ~5u) for the kernel's own rounding of sin, cos and the
// product), or the result (wherever the float32-bound allowance around the reference reaches
// below 2^-126: an honest evaluation can land there although the reference is normal).
#include "rope2d/verify/model/flush.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "rope2d/verify/model/tolerance_core.hpp"

namespace rope2d::verify {

namespace {

using core::product_may_be_subnormal;
using core::subnormal;

}  // namespace

std::string flush_mask_name(unsigned mask) {
  if (mask == 0) return "IEEE";
  std::string s;
  const char* names[] = {"angle", "gc*sin", "gs*cos", "result"};
  for (int b = 0; b < 4; ++b)
    if (mask & (1u << b)) {
      if (!s.empty()) s += '+';
      s += names[b];
    }
  return s;
}

bool may_involve_subnormal(const ref::Element& e, float ref) {
  return core::may_involve_subnormal(e.gc, e.gs, e.t, ref);
}

namespace {

// Which values of e's evaluation may be flushed, with the angle kept (index 0) or flushed (1).
struct Flushable {
  bool angle = false;
  bool sin_term[2] = {}, cos_term[2] = {};
};

Flushable flushable(const ref::Element& e) {
  Flushable f;
  double s, c;
  ::sincos(static_cast<double>(e.t), &s, &c);
  f.angle = subnormal(e.t);
  f.sin_term[0] = product_may_be_subnormal(e.gc, s);
  f.cos_term[0] = product_may_be_subnormal(e.gs, c);
  f.sin_term[1] = false;  // sin(±0) = ±0: the term is already zero
  f.cos_term[1] = product_may_be_subnormal(e.gs, 1.0);
  return f;
}

}  // namespace

bool involves_subnormal(const ref::Element& e, float ref) {
  double s, c;
  ::sincos(static_cast<double>(e.t), &s, &c);
  return core::involves_subnormal(e.gc, e.gs, e.t, ref, s, c);
}

std::vector<FlushedProblem> flushed_problems(const ref::Element& e) {
  // Non-finite grads too: a flushed subnormal angle makes inf * sin(0) = NaN, which is what an
  // honest flush-to-zero kernel returns there. flushable() marks only values that really are
  // subnormal, and no infinite or NaN value is.
  std::vector<FlushedProblem> out;
  const Flushable ok = flushable(e);
  static const std::vector<unsigned> masks = [] {
    std::vector<unsigned> m;
    for (unsigned k = 1; k < flush_mask_count; ++k) m.push_back(k);
    std::stable_sort(m.begin(), m.end(), [](unsigned a, unsigned b) { return std::popcount(a) < std::popcount(b); });
    return m;
  }();
  for (unsigned m : masks) {
    const int a = (m & flush_angle) ? 1 : 0;
    if ((a && !ok.angle) || ((m & flush_sin_term) && !ok.sin_term[a]) || ((m & flush_cos_term) && !ok.cos_term[a]))
      continue;
    ref::Element f = e;
    if (a) f.t = std::copysign(0.0f, f.t);
    if (m & flush_sin_term) f.gc = std::copysign(0.0, f.gc);
    if (m & flush_cos_term) f.gs = std::copysign(0.0, f.gs);
    float r = ref::certified_backward_fp32(f);
    if (m & flush_result) {
      // Only a result the evaluation can leave below 2^-126 (never NaN or Inf) is flushed.
      const bool terms = ok.angle || ok.sin_term[a] || ok.cos_term[a];  // other values that may be subnormal
      if (!core::result_may_be_subnormal(r, ref::condition_scale(f), f.gc, terms)) continue;
      r = std::copysign(0.0f, r);
    }
    const bool duplicate = std::any_of(out.begin(), out.end(), [&](const FlushedProblem& p) {
      return std::bit_cast<std::uint32_t>(p.ref) == std::bit_cast<std::uint32_t>(r) && p.e.gc == f.gc &&
             p.e.gs == f.gs && p.e.t == f.t;
    });
    if (!duplicate) out.push_back({m, f, r, ref::condition_scale(f)});
  }
  return out;
}

}  // namespace rope2d::verify
