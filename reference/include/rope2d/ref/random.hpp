// A seeded random source whose draws are the same on every platform: std::mt19937_64 is
// specified bit for bit, the standard distributions are not, so the draws are made here.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace rope2d::ref {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t bits() { return engine_(); }
  // Uniform integer in [0, n), n > 0 (multiply-shift; bias below 2^-32 for the n used here).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(engine_()) * n) >> 64);
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1p-53; }
  bool chance(double p) { return uniform() < p; }
  // Standard normal by Box-Muller, one value per call (the second is discarded to keep the
  // stream position a function of the call count alone).
  double normal() {
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace rope2d::ref
