// Drawing inputs of each regime.
#include "rope2d/ref/regimes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/overflow.hpp"

namespace rope2d::ref {

namespace {

// pi/2 in three parts of 33, 33 and 53 bits (Cody-Waite): k * part is exact for k < 2^20,
// so multiples of pi/2 near float32 angles are located to about 2^-80 absolute.
constexpr double pio2_1 = 0x1.921fb544p+0;
constexpr double pio2_2 = 0x1.0b4611a6p-34;
constexpr double pio2_3 = 0x1.3198a2e037073p-69;

// Distance of float32 t from k*pi/2.
double axis_distance(float t, double k) {
  return ((static_cast<double>(t) - k * pio2_1) - k * pio2_2) - k * pio2_3;
}

}  // namespace

float nearest_float_to_axis(double k) {
  float best = static_cast<float>(k * pio2_1 + k * pio2_2);
  for (float c : {std::nextafter(best, -INFINITY), std::nextafter(best, INFINITY)})
    if (std::fabs(axis_distance(c, k)) < std::fabs(axis_distance(best, k))) best = c;
  return best;
}

float near_axis_angle(double k, int step, bool negative) {
  float t = nearest_float_to_axis(k);
  for (int i = 0; i < std::abs(step); ++i) t = std::nextafter(t, step < 0 ? -INFINITY : INFINITY);
  return negative ? -t : t;
}

double cancelling_gs(Dtype d, double& gc, float t) {
  if (gc == 0.0) gc = 1.0;
  const double gs = round_to(d, gc * std::tan(static_cast<double>(t)));
  return std::isfinite(gs) ? gs : 1.0;
}

double subnormal_of(Dtype d, std::uint64_t units, bool negative) {
  const Format f = format_of(d);
  const double x = std::ldexp(static_cast<double>(units), f.emin - f.precision + 1);
  return negative ? -x : x;
}

std::vector<SpecialGrad> special_grads(Dtype d) {
  const Format f = format_of(d);
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::uint64_t top = (std::uint64_t{1} << (f.precision - 1)) - 1;
  // Largest finite: (2 - 2^(1-p)) * 2^emax.
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
  return {{0.0, false},  {-0.0, false},    {subnormal_of(d, 1), false}, {subnormal_of(d, top, true), false},
          {inf, false},  {-inf, false},    {std::numeric_limits<double>::quiet_NaN(), false},
          {largest, false}, {-largest, false}, {0.0, true}};
}

std::vector<float> special_angles() {
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {0.0f, -0.0f, 0x1p-149f, -0x1.fffffcp-127f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                          0x1p100f, -std::numeric_limits<float>::max(), 0x1p24f + 2.0f};
  for (float t : nearest_axis_angles(21, 1)) {
    a.push_back(t);
    a.push_back(-t);
  }
  static const std::vector<float> theta = theta_table(RopeConfig{});
  for (float pos : {1.0f, 4095.0f, 196607.0f})
    for (std::size_t k : {std::size_t{0}, std::size_t{1}, theta.size() / 2, theta.size() - 1}) a.push_back(pos * theta[k]);
  return a;
}

namespace {

double randn_grad(Random& rng, Dtype d) { return round_to(d, rng.normal()); }

float random_sign(Random& rng, float x) { return rng.chance(0.5) ? -x : x; }

// A uniformly drawn bit pattern in [lo, hi) (positive floats), with random sign.
float float_between(Random& rng, float lo, float hi) {
  const auto a = std::bit_cast<std::uint32_t>(lo), b = std::bit_cast<std::uint32_t>(hi);
  return random_sign(rng, std::bit_cast<float>(static_cast<std::uint32_t>(a + rng.below(b - a))));
}

double subnormal_grad(Random& rng, Dtype d) {
  // Subnormals of the format are the multiples of 2^(emin - p + 1) below 2^emin.
  const std::uint64_t units = std::uint64_t{1} << (format_of(d).precision - 1);
  const std::uint64_t u = 1 + rng.below(units - 1);
  return subnormal_of(d, u, rng.chance(0.5));
}

}  // namespace

std::string_view name(Regime r) {
  switch (r) {
    case Regime::randn: return "randn";
    case Regime::layout: return "layout";
    case Regime::large_angle: return "large_angle";
    case Regime::near_axis: return "near_axis";
    case Regime::cancellation: return "cancellation";
    case Regime::signed_zero: return "signed_zero";
    case Regime::subnormal: return "subnormal";
    case Regime::nonfinite: return "nonfinite";
    case Regime::near_overflow: return "near_overflow";
  }
  return "?";
}

std::optional<Regime> parse_regime(std::string_view s) {
  for (Regime r : all_regimes)
    if (name(r) == s) return r;
  return std::nullopt;
}

Element draw(Regime r, Random& rng, Dtype d) {
  switch (r) {
    case Regime::randn:
      return {randn_grad(rng, d), randn_grad(rng, d), static_cast<float>(rng.normal())};
    case Regime::layout: {
      static const std::vector<float> theta = theta_table(RopeConfig{});
      const float pos = static_cast<float>(rng.below(196608));
      return {randn_grad(rng, d), randn_grad(rng, d), pos * theta[rng.below(theta.size())]};
    }
    case Regime::large_angle: {
      const float t = rng.chance(0.9) ? float_between(rng, 0x1p10f, 0x1p24f)
                                      : float_between(rng, 0x1p24f, std::numeric_limits<float>::max());
      return {randn_grad(rng, d), randn_grad(rng, d), t};
    }
    case Regime::near_axis: {
      // Half the time one of the 32 angles nearest to a multiple of pi/2 in a binade up to
      // 2^20 (|sin| or |cos| below ~2^-18); else the float nearest to a random multiple below
      // 2^7, or up to two ulps off it (float spacing keeps |sin| or |cos| below 2^-15 there).
      static const std::vector<float> table = nearest_axis_angles(21, 32);
      float t;
      if (rng.chance(0.5)) {
        t = table[rng.below(table.size())];
      } else {
        const int binade = static_cast<int>(rng.below(7));
        const double k = std::max(1.0, std::floor(std::ldexp(1.0 + rng.uniform(), binade) / pio2_1));
        t = nearest_float_to_axis(k);
        for (auto steps = rng.below(3); steps > 0; --steps) t = std::nextafter(t, rng.chance(0.5) ? -INFINITY : INFINITY);
      }
      return {randn_grad(rng, d), randn_grad(rng, d), random_sign(rng, t)};
    }
    case Regime::cancellation: {
      // gs = gc tan t rounded to the grad dtype: -gc sin t + gs cos t = cos t (gs - gc tan t)
      // is then a rounding error of gs times cos t, far below either term.
      const float t = rng.chance(0.5) ? static_cast<float>(rng.normal() * 3) : float_between(rng, 1.0f, 0x1p17f);
      double gc = randn_grad(rng, d);
      const double gs = cancelling_gs(d, gc, t);
      return {gc, gs, t};
    }
    case Regime::signed_zero: {
      auto zero_or = [&](double x) { return rng.chance(0.6) ? (rng.chance(0.5) ? -0.0 : 0.0) : x; };
      const double gc = zero_or(randn_grad(rng, d)), gs = zero_or(randn_grad(rng, d));
      const float t = rng.chance(0.5) ? (rng.chance(0.5) ? -0.0f : 0.0f) : static_cast<float>(rng.normal());
      return {gc, gs, t};
    }
    case Regime::subnormal: {
      const double gc = rng.chance(0.8) ? subnormal_grad(rng, d) : randn_grad(rng, d);
      const double gs = rng.chance(0.8) ? subnormal_grad(rng, d) : randn_grad(rng, d);
      const float t = rng.chance(0.2) ? float_between(rng, 0x1p-149f, 0x1p-126f) : static_cast<float>(rng.normal());
      return {gc, gs, t};
    }
    case Regime::nonfinite: {
      constexpr double inf = std::numeric_limits<double>::infinity();
      const double specials[] = {inf, -inf, std::numeric_limits<double>::quiet_NaN()};
      Element e{randn_grad(rng, d), randn_grad(rng, d), static_cast<float>(rng.normal())};
      switch (rng.below(3)) {
        case 0: e.gc = specials[rng.below(3)]; break;
        case 1: e.gs = specials[rng.below(3)]; break;
        default: e.t = static_cast<float>(specials[rng.below(3)]); break;
      }
      return e;
    }
    case Regime::near_overflow:
      return near_overflow(rng, d);
  }
  return {};
}

std::vector<float> nearest_axis_angles(int max_binade, int per_binade) {
  std::vector<float> out;
  for (int e = 0; e < max_binade; ++e) {
    const double lo = std::ldexp(1.0, e), hi = std::ldexp(1.0, e + 1);
    std::vector<std::pair<double, float>> best;  // (distance, angle), kept sorted, at most per_binade
    for (double k = std::ceil(lo / pio2_1); k * pio2_1 < hi; ++k) {
      const float t = nearest_float_to_axis(k);
      if (t < lo || t >= hi) continue;
      const double dist = std::fabs(axis_distance(t, k));
      if (static_cast<int>(best.size()) == per_binade && dist >= best.back().first) continue;
      best.insert(std::upper_bound(best.begin(), best.end(), std::make_pair(dist, t)), {dist, t});
      if (static_cast<int>(best.size()) > per_binade) best.pop_back();
    }
    for (const auto& b : best) out.push_back(b.second);
  }
  return out;
}

Element near_smallest_normal(Dtype d, int kind, double mant, int ulps, int spread, double other, bool negative) {
  const double target = (negative ? -1 : 1) * std::ldexp(1.0 + ulps * 0x1p-23, -126);
  if (kind == 2) {
    // -gc sin t + gs cos t = rho cos(t + phi), rho = hypot(gc, gs), phi = atan2(gc, gs); the
    // float32 rounding of t moves the result by about rho 2^-24 |t|: rho near 2^-119 keeps it
    // within a few ulps of 2^-126.
    const double scale = std::ldexp(1.0, -119 - spread);
    const double gc = round_to(d, mant * scale), gs = round_to(d, (other == 0 ? 0.5 : other) * scale);
    const double rho = std::hypot(gc, gs), phi = std::atan2(gc, gs);
    return {gc, gs, static_cast<float>(std::acos(target / rho) - phi)};
  }
  // A grad mant times the target, and t with |sin t| (or |cos t|) = 1/mant: the product lands
  // within about mant ulps of the target.
  const double g = round_to(d, mant * target);
  const double f = target / g;  // in (1/4, 1]
  const float t = static_cast<float>(kind == 0 ? std::asin(f) : std::acos(f));
  const double o = round_to(d, other * std::fabs(target));
  return kind == 0 ? Element{g, o, t} : Element{o, g, t};
}

}  // namespace rope2d::ref
