// Overflow of the float32 result: the distance an honest evaluation may be from an infinity,
// and the near-overflow input regime (see overflow.hpp).
#include "rope2d/ref/overflow.hpp"

#include <cmath>
#include <limits>

namespace rope2d::ref {

double unrounded_value(const Element& e) {
  double s, c;
  ::sincos(static_cast<double>(e.t), &s, &c);
  return -(e.gc * s) + e.gs * c;
}

double overflow_error(float got, double exact) {
  if (std::isnan(got) || std::isnan(exact)) return INFINITY;
  if (std::isfinite(got)) return std::fabs(static_cast<double>(got) - exact);
  if (std::signbit(got) != std::signbit(exact)) return INFINITY;
  return std::max(0.0, float32_overflow_threshold - std::fabs(exact));
}

namespace {

double top_grad(Random& rng, Dtype d) {
  const Format f = format_of(d);
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
  double g;
  switch (rng.below(4)) {
    case 0: g = largest; break;
    case 1: g = std::ldexp(1.0, f.emax); break;
    default: g = round_to(d, std::ldexp(1.0 + rng.uniform(), f.emax - static_cast<int>(rng.below(3)))); break;
  }
  if (!std::isfinite(g)) g = largest;
  return rng.chance(0.5) ? -g : g;
}

}  // namespace

Element near_overflow(Random& rng, Dtype d) {
  const double gc = top_grad(rng, d);
  // The second grad is large too most of the time (both terms near FLT_MAX: the sum can pass
  // the threshold), else ordinary.
  const double gs = rng.chance(0.8) ? top_grad(rng, d) : round_to(d, rng.normal());
  float t;
  switch (rng.below(3)) {
    case 0: t = std::ldexp(1.0f + static_cast<float>(rng.below(1 << 23)) * 0x1p-23f, -static_cast<int>(rng.below(30)) - 1); break;
    case 1: t = static_cast<float>(rng.normal()); break;
    default: t = std::ldexp(1.0f, -24); break;
  }
  return {gc, gs, rng.chance(0.5) ? -t : t};
}

}  // namespace rope2d::ref
