// The testbed's output pre-fill (prefill.hpp): always a NaN, never the poison nor a NaN that
// arithmetic or a dtype conversion makes (so turning elements that still hold it into the
// poison finds exactly the unwritten ones), and varied per element and per call (so a kernel
// sampling its output sees no uniform pattern).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "rope2d/verify/prefill.hpp"

using namespace rope2d::verify;

TEST(Prefill, AlwaysANanNoKernelMakes) {
  for (std::uint32_t seed : {1u, 2u, 3u, 0xffffffffu})
    for (std::uint64_t i = 0; i < (1u << 20); ++i) {
      const std::uint32_t b = prefill_bits(i, seed);
      ASSERT_GT(b & 0x7fffffffu, 0x7f800000u) << i;  // NaN
      ASSERT_NE(b & 0x1fffu, 0u) << i;                // not a widened bf16/fp16 NaN, not canonical
      ASSERT_NE(b & 0xffffu, 0xffffu) << i;           // not CUDA's 0x7fffffff
      ASSERT_NE(b, poison_bits) << i;
    }
}

TEST(Prefill, VariesPerElementAndPerCall) {
  std::set<std::uint32_t> seen;
  int negative = 0, same_as_next_call = 0;
  const int n = 1 << 16;
  for (int i = 0; i < n; ++i) {
    seen.insert(prefill_bits(i, 7));
    negative += prefill_bits(i, 7) >> 31;
    same_as_next_call += prefill_bits(i, 7) == prefill_bits(i, 8);
  }
  EXPECT_GT(seen.size(), static_cast<std::size_t>(n) * 99 / 100);
  EXPECT_GT(negative, n / 3);
  EXPECT_LT(negative, 2 * n / 3);
  EXPECT_LT(same_as_next_call, 4);
  EXPECT_EQ(prefill_bits(12345, 9), prefill_bits(12345, 9));  // a pure function: the device recomputes it
}
