// What an output holds before a call on the testbed: per element and per call varied contents
// in one of three styles, so that a kernel that samples its output cannot tell a judged call
// by a uniform pattern, nor by NaN alone. The judged call's pre-fill is a NaN: after it every
// element still holding its own pre-fill is turned into the poison, so the judge counts
// unwritten elements as it always has. Exact for every NaN IEEE arithmetic or a dtype
// conversion makes: the NaN pre-fill's low 13 bits are never all 0 (a bf16 or fp16 NaN
// widened, a canonical NaN) and its low 16 never all 1 (CUDA's 0x7fffffff), and it is never
// the poison (only a kernel passing an input NaN's payload through could write one, and where
// an input is NaN the reference is NaN too, and the judge takes the poison as any NaN). The repeat call's pre-fill is finite (plausible
// gradients) or mixed; a finite value a kernel may write too, so that call is judged against
// the judged call (repeat_check).
#pragma once

#include <cstdint>

#include "rope2d/ref/hd.hpp"
#include "rope2d/verify/model/metrics.hpp"

namespace rope2d::verify {

enum class PrefillStyle : std::uint32_t {
  nan,     // a NaN of any sign and payload
  finite,  // a finite value of a gradient's magnitude, any sign: [2^-10, 4)
  mixed,   // per element either
};

// splitmix64's finaliser over (index, seed): every bit of both reaches every output bit.
ROPE2D_HD inline std::uint64_t prefill_hash(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t z = i * 0x9e3779b97f4a7c15ull + (static_cast<std::uint64_t>(seed) << 32 | seed);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

ROPE2D_HD inline std::uint32_t prefill_bits(std::uint64_t i, std::uint32_t seed) {
  const std::uint64_t z = prefill_hash(i, seed);
  std::uint32_t b = 0x7f800000u | (static_cast<std::uint32_t>(z) & 0x807fffffu);  // any sign, any payload
  if ((b & 0x1fffu) == 0u || (b & 0xffffu) == 0xffffu) b ^= 0x0a5au;  // a payload arithmetic never makes; still NaN
  if (b == poison_bits) b ^= 1u;
  return b;
}

ROPE2D_HD inline std::uint32_t prefill_bits(std::uint64_t i, std::uint32_t seed, PrefillStyle style) {
  const std::uint64_t z = prefill_hash(i, seed);
  const bool nan = style == PrefillStyle::nan || (style == PrefillStyle::mixed && ((z >> 56) & 1u));
  if (nan) return prefill_bits(i, seed);
  const auto exponent = static_cast<std::uint32_t>(117u + (z >> 40) % 12u);  // 2^-10 .. 2^1
  return (static_cast<std::uint32_t>(z >> 32) & 0x80000000u) | exponent << 23 | (static_cast<std::uint32_t>(z >> 8) & 0x7fffffu);
}

// The repeat call's style, drawn from its seed.
ROPE2D_HD inline PrefillStyle repeat_style(std::uint32_t seed) { return (seed & 1u) ? PrefillStyle::finite : PrefillStyle::mixed; }

// Two results agree: the same bits, except that any NaN equals any NaN (IEEE fixes no NaN's
// sign or payload) - but never the poison, which marks an element a call did not write.
inline bool same_result(std::uint32_t a, std::uint32_t b) {
  const auto nan = [](std::uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u && x != poison_bits; };
  return a == b || (nan(a) && nan(b));
}

// The repeat call's output (pre-filled in `style` of `seed`, not poisoned) against the judged
// call's (NaN pre-fill, unwritten elements poisoned), element by element. An element where
// the two differ and the repeat call's still holds its own pre-fill is counted unwritten by
// the repeat call; any other difference is a different result. Both fail, and an honest
// deterministic kernel gives neither: where the calls agree nothing is counted. A written
// element that happens to equal its finite pre-fill while differing from the judged call
// (a different result) is counted unwritten: the reason may be misnamed, never missed.
struct RepeatFindings {
  std::int64_t left_unwritten = 0;  // elements the repeat call did not write
  std::int64_t differing = 0;       // elements it wrote with another result
};
inline RepeatFindings repeat_check(const std::uint32_t* repeat, const std::uint32_t* judged, std::int64_t n, std::uint32_t seed,
                                   PrefillStyle style) {
  RepeatFindings f;
  for (std::int64_t i = 0; i < n; ++i) {
    if (same_result(repeat[i], judged[i])) continue;
    if (repeat[i] == prefill_bits(static_cast<std::uint64_t>(i), seed, style)) ++f.left_unwritten;
    else ++f.differing;
  }
  return f;
}

}  // namespace rope2d::verify
