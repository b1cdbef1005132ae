// The testbed's output pre-fill (prefill.hpp): the judged call's is always a NaN, never the
// poison nor a NaN that arithmetic or a dtype conversion makes (so turning elements that still
// hold it into the poison finds exactly the unwritten ones), varied per element and per call
// (so a kernel sampling its output sees no uniform pattern); the repeat call's is finite or
// mixed, and repeat_check tells its unwritten elements from its different results exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <bit>
#include <cmath>
#include <set>
#include <vector>

#include "harness/testbed/prefill.hpp"

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

TEST(Prefill, FiniteStyleLooksLikeGradients) {
  int negative = 0, nans = 0;
  std::set<std::uint32_t> seen;
  const int n = 1 << 16;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t b = prefill_bits(i, 11, PrefillStyle::finite);
    const float v = std::bit_cast<float>(b);
    ASSERT_TRUE(std::isfinite(v)) << i;
    ASSERT_GE(std::fabs(v), 0x1p-10f) << i;
    ASSERT_LT(std::fabs(v), 4.0f) << i;
    negative += v < 0;
    seen.insert(b);
    nans += std::isnan(std::bit_cast<float>(prefill_bits(i, 11, PrefillStyle::mixed)));
    ASSERT_EQ(prefill_bits(i, 11, PrefillStyle::nan), prefill_bits(i, 11)) << i;
  }
  EXPECT_GT(seen.size(), static_cast<std::size_t>(n) * 99 / 100);
  EXPECT_GT(negative, n / 3);
  EXPECT_LT(negative, 2 * n / 3);
  EXPECT_GT(nans, n / 3);  // mixed: about half NaN, half finite
  EXPECT_LT(nans, 2 * n / 3);
  EXPECT_NE(repeat_style(1), repeat_style(2));  // both repeat styles are drawn
  EXPECT_NE(repeat_style(1), PrefillStyle::nan);
  EXPECT_NE(repeat_style(2), PrefillStyle::nan);
}

// A kernel run twice: once on a NaN pre-fill (the judged call, unwritten elements poisoned as
// the testbed does) and once on the repeat call's finite or mixed pre-fill.
struct TwoCalls {
  std::vector<std::uint32_t> judged, repeat;
};
template <class Write>
TwoCalls run_twice(std::int64_t n, std::uint32_t seed, Write write) {
  TwoCalls c{std::vector<std::uint32_t>(n), std::vector<std::uint32_t>(n)};
  const PrefillStyle style = repeat_style(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    c.judged[i] = prefill_bits(i, seed - 1);
    c.repeat[i] = prefill_bits(i, seed, style);
  }
  write(c.judged, true);
  write(c.repeat, false);
  for (std::int64_t i = 0; i < n; ++i)
    if (c.judged[i] == prefill_bits(i, seed - 1)) c.judged[i] = poison_bits;
  return c;
}

TEST(Prefill, RepeatCheckTellsUnwrittenFromDifferent) {
  const std::int64_t n = 4096;
  auto value = [](std::int64_t i) { return std::bit_cast<std::uint32_t>(0.25f + static_cast<float>(i)); };
  for (std::uint32_t seed : {2u, 3u, 1000u, 1001u}) {
    // Honest: writes every element, the same in both calls; NaN results with another payload.
    auto honest = run_twice(n, seed, [&](std::vector<std::uint32_t>& out, bool judged) {
      for (std::int64_t i = 0; i < n; ++i) out[i] = i % 97 == 0 ? (judged ? 0x7fc00000u : 0xffc00001u) : value(i);
    });
    RepeatFindings f = repeat_check(honest.repeat.data(), honest.judged.data(), n, seed, repeat_style(seed));
    EXPECT_EQ(f.left_unwritten, 0);
    EXPECT_EQ(f.differing, 0);
    // Writes only where its output holds a NaN (a "result cache" in the output buffer).
    auto skips = run_twice(n, seed, [&](std::vector<std::uint32_t>& out, bool) {
      for (std::int64_t i = 0; i < n; ++i)
        if (std::isnan(std::bit_cast<float>(out[i]))) out[i] = value(i);
    });
    f = repeat_check(skips.repeat.data(), skips.judged.data(), n, seed, repeat_style(seed));
    std::int64_t finite_fills = 0;
    for (std::int64_t i = 0; i < n; ++i) finite_fills += !std::isnan(std::bit_cast<float>(prefill_bits(i, seed, repeat_style(seed))));
    EXPECT_EQ(f.left_unwritten, finite_fills) << seed;
    EXPECT_GT(f.left_unwritten, 0);
    EXPECT_EQ(f.differing, 0);
    // Computes otherwise when its output does not look pre-filled with NaNs.
    auto sniffs = run_twice(n, seed, [&](std::vector<std::uint32_t>& out, bool) {
      const bool looks_judged = std::isnan(std::bit_cast<float>(out[0])) && std::isnan(std::bit_cast<float>(out[n - 1]));
      for (std::int64_t i = 0; i < n; ++i) out[i] = looks_judged ? value(i) : value(i) ^ 1u;
    });
    f = repeat_check(sniffs.repeat.data(), sniffs.judged.data(), n, seed, repeat_style(seed));
    if (!std::isnan(std::bit_cast<float>(prefill_bits(0, seed, repeat_style(seed)))) ||
        !std::isnan(std::bit_cast<float>(prefill_bits(n - 1, seed, repeat_style(seed))))) {
      EXPECT_EQ(f.differing, n) << seed;
    }
    // Skips the last element in both calls: the judged call's poison against the repeat call's
    // own pre-fill, which never equal.
    auto tail = run_twice(n, seed, [&](std::vector<std::uint32_t>& out, bool) {
      for (std::int64_t i = 0; i + 1 < n; ++i) out[i] = value(i);
    });
    f = repeat_check(tail.repeat.data(), tail.judged.data(), n, seed, repeat_style(seed));
    EXPECT_EQ(f.left_unwritten, 1);
    EXPECT_EQ(f.differing, 0);
  }
}
