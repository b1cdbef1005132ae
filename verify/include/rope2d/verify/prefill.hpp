// What an output holds before a call on the testbed: per element and per call a different NaN
// (sign and payload from a hash of the index and the call's seed), so that a kernel that
// samples its output cannot tell a judged call by a uniform pattern. After the call every
// element still holding its own pre-fill is turned into the poison, so the judge counts
// unwritten elements as it always has. Exact for every NaN IEEE arithmetic or a dtype
// conversion makes: the pre-fill's low 13 bits are never all 0 (a bf16 or fp16 NaN widened, a
// canonical NaN) and its low 16 never all 1 (CUDA's 0x7fffffff), and it is never the poison.
#pragma once

#include <cstdint>

#include "rope2d/ref/hd.hpp"
#include "rope2d/verify/metrics.hpp"

namespace rope2d::verify {

ROPE2D_HD inline std::uint32_t prefill_bits(std::uint64_t i, std::uint32_t seed) {
  // splitmix64's finaliser over (index, seed): every bit of both reaches every output bit.
  std::uint64_t z = i * 0x9e3779b97f4a7c15ull + (static_cast<std::uint64_t>(seed) << 32 | seed);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  std::uint32_t b = 0x7f800000u | (static_cast<std::uint32_t>(z) & 0x807fffffu);  // any sign, any payload
  if ((b & 0x1fffu) == 0u || (b & 0xffffu) == 0xffffu) b ^= 0x0a5au;  // a payload arithmetic never makes; still NaN
  if (b == poison_bits) b ^= 1u;
  return b;
}

}  // namespace rope2d::verify
