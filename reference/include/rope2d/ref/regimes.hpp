// Input regimes: the one place where test inputs of each kind are drawn, shared by the
// properties, the verifier and the golden-data generator. Floats are drawn over bit patterns
// and by construction, never only from a smooth distribution, so each regime hits its hard
// cases: angles of thousands of radians, angles nearest to multiples of pi/2, cancelling
// terms, signed zeros, subnormal grads, NaN and Inf, results at the edge of float32 overflow.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/dtype.hpp"
#include "rope2d/ref/random.hpp"

namespace rope2d::ref {

enum class Regime {
  randn,         // N(0,1) grads and angles, as SOL-ExecBench draws them
  layout,        // N(0,1) grads, angles fl32(pos * theta) of positions up to 196608
  large_angle,   // angles over the bit patterns of [2^10, 2^24), sometimes up to 2^127
  near_axis,     // angles nearest to multiples of pi/2 up to 2^20 (sin or cos tiny)
  cancellation,  // gc sin t and gs cos t nearly equal: the result cancels
  signed_zero,   // ±0 grads and angles
  subnormal,     // subnormal grads (and angles)
  nonfinite,     // NaN and Inf in any input
  near_overflow, // grads near the top of the float32 range: results just below, at, above FLT_MAX
};

inline constexpr Regime all_regimes[] = {Regime::randn,        Regime::layout,      Regime::large_angle,
                                         Regime::near_axis,    Regime::cancellation, Regime::signed_zero,
                                         Regime::subnormal,    Regime::nonfinite,   Regime::near_overflow};

std::string_view name(Regime r);
std::optional<Regime> parse_regime(std::string_view s);

// One element of the regime; gc and gs are exact values of grad_dtype.
Element draw(Regime r, Random& rng, Dtype grad_dtype);

// The float32 nearest to k*pi/2 (k >= 1, k < 2^20).
float nearest_float_to_axis(double k);

// ---- Constructive pieces: the suites, the regimes above and the RapidCheck generators all
// build their hard inputs from these, so each kind of hard case is defined once.

// The float nearest to k*pi/2 moved `step` floats (negative: towards -inf) and negated when
// `negative`: with |step| <= 2 and k < 2^20, |sin| or |cos| stays below about 2^-15.
float near_axis_angle(double k, int step, bool negative = false);

// gs such that -gc sin t + gs cos t cancels: gs = gc tan t rounded to the dtype, so the result
// is cos t times a rounding error of gs. A zero gc becomes 1, an infinite gs becomes 1.
double cancelling_gs(Dtype d, double& gc, float t);

// The subnormal of the dtype's format with `units` units in the last place (1 <= units <
// 2^(p-1)): units * 2^(emin - p + 1).
double subnormal_of(Dtype d, std::uint64_t units, bool negative = false);

// Flush-to-zero's edge: an element whose product gc sin t (kind 0) or gs cos t (kind 1), or
// whose result (kind 2: two products near 2^-(119 + spread) cancelling, spread 0 to 8), lies within a few
// float32 ulps of +-2^-126 (1 + ulps 2^-23). `mant` in [1, 4) scales the grad against the
// target; t is solved for (asin, acos, or acos of the result over hypot(gc, gs)). The other
// grad is drawn from `other` in [-1, 1) at the product's size. bf16 and fp32 grads.
Element near_smallest_normal(Dtype d, int kind, double mant, int ulps, int spread, double other, bool negative);

// Special grads of the dtype, each exact in it: +-0, the smallest and largest subnormal, +-Inf,
// NaN, +-largest finite; `ordinary` stands for a value drawn per element (NaN-free, finite).
struct SpecialGrad {
  double value;
  bool ordinary;
};
std::vector<SpecialGrad> special_grads(Dtype d);

// Special angles: +-0, smallest and largest float32 subnormal, +-Inf, NaN, huge (2^100, the
// largest finite float, 2^24 + 2), the float nearest to a multiple of pi/2 in every binade
// 2^0 .. 2^20 (both signs), and real layout angles fl32(pos * theta[k]) at the extremes of
// position and frequency.
std::vector<float> special_angles();

// Float32 angles in [2^e, 2^(e+1)) nearest to a multiple of pi/2, the `per_binade` nearest
// of each binade e = 0 .. max_binade - 1, found by scanning every multiple in the binade.
std::vector<float> nearest_axis_angles(int max_binade, int per_binade);

}  // namespace rope2d::ref
