// The flushed problems of one element (see flush.hpp). A value may be flushed only if it is
// subnormal in the evaluation: the angle itself, a grad, a product (the exact product below
// 2^-126, widened by 2^-20 for the kernel's own rounding of sin, cos and the product), or the
// result (correctly rounded at most 2^-126 in magnitude).
#include "rope2d/verify/flush.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rope2d::verify {

namespace {

constexpr double tiny = 0x1p-126;  // smallest normal float32

bool subnormal(double x) { return x != 0 && std::fabs(x) < tiny; }

// The product of a grad and sin or cos, as the float32 evaluation may see it: subnormal?
bool product_may_be_subnormal(double g, double f) {
  return g != 0 && f != 0 && (subnormal(g) || std::fabs(g * f) < tiny * (1 + 0x1p-20));
}

}  // namespace

std::string flush_mask_name(unsigned mask) {
  if (mask == 0) return "IEEE";
  std::string s;
  const char* names[] = {"angle", "gc*sin", "gs*cos", "result"};
  for (int b = 0; b < 4; ++b)
    if (mask & (1u << b)) s += (s.empty() ? "" : "+") + std::string(names[b]);
  return s;
}

bool may_involve_subnormal(const ref::Element& e, float ref) {
  constexpr double margin = 0x1p-86;  // 2^-126 / 2^-40
  const double t = e.t;
  return (t != 0 && std::fabs(t) < margin) || (e.gc != 0 && std::fabs(e.gc) < margin) ||
         (e.gs != 0 && std::fabs(e.gs) < margin) || (ref != 0 && std::fabs(ref) <= tiny);
}

std::vector<FlushedProblem> flushed_problems(const ref::Element& e) {
  std::vector<FlushedProblem> out;
  if (!std::isfinite(e.gc) || !std::isfinite(e.gs) || !std::isfinite(e.t)) return out;
  std::vector<unsigned> masks;
  for (unsigned m = 1; m < flush_mask_count; ++m) masks.push_back(m);
  std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) { return std::popcount(a) < std::popcount(b); });
  for (unsigned m : masks) {
    ref::Element f = e;
    if (m & flush_angle) {
      if (!subnormal(f.t)) continue;
      f.t = std::copysign(0.0f, f.t);
    }
    const double s = f.t == 0 ? 0.0 : std::sin(static_cast<double>(f.t));
    const double c = f.t == 0 ? 1.0 : std::cos(static_cast<double>(f.t));
    if (m & flush_sin_term) {
      if (!product_may_be_subnormal(f.gc, s)) continue;  // includes: already zero (no-op)
      f.gc = std::copysign(0.0, f.gc);
    }
    if (m & flush_cos_term) {
      if (!product_may_be_subnormal(f.gs, c)) continue;
      f.gs = std::copysign(0.0, f.gs);
    }
    float r = ref::certified_backward_fp32(f);
    if (m & flush_result) {
      if (r == 0 || std::fabs(r) > tiny) continue;
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
