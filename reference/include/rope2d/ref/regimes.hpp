// Input regimes: the one place where test inputs of each kind are drawn, shared by the
// properties, the verifier and the golden-data generator. Floats are drawn over bit patterns
// and by construction, never only from a smooth distribution, so each regime hits its hard
// cases: angles of thousands of radians, angles nearest to multiples of pi/2, cancelling
// terms, signed zeros, subnormal grads, NaN and Inf.
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
};

inline constexpr Regime all_regimes[] = {Regime::randn,        Regime::layout,      Regime::large_angle,
                                         Regime::near_axis,    Regime::cancellation, Regime::signed_zero,
                                         Regime::subnormal,    Regime::nonfinite};

std::string_view name(Regime r);
std::optional<Regime> parse_regime(std::string_view s);

// One element of the regime; gc and gs are exact values of grad_dtype.
Element draw(Regime r, Random& rng, Dtype grad_dtype);

// The float32 nearest to k*pi/2 (k >= 1, k < 2^20).
float nearest_float_to_axis(double k);

// Float32 angles in [2^e, 2^(e+1)) nearest to a multiple of pi/2, the `per_binade` nearest
// of each binade e = 0 .. max_binade - 1, found by scanning every multiple in the binade.
std::vector<float> nearest_axis_angles(int max_binade, int per_binade);

}  // namespace rope2d::ref
