// Unit tests: the model's position rules, theta tables, angles and random layouts (their JSON:
// verify/tests/json_schema_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "rope2d/ref/layout.hpp"

using namespace rope2d::ref;

namespace {

Segment text(std::int64_t count) { return {.kind = Segment::Kind::text, .count = count}; }
Segment image(int h, int w) { return {.kind = Segment::Kind::image, .h = h, .w = w}; }
Segment marker(std::int64_t count, std::int64_t pos) { return {.kind = Segment::Kind::marker, .count = count, .pos = pos}; }

// A layout's segments as numbers (kind, count, h, w, pos each), to compare two layouts.
std::vector<std::int64_t> segments(const Layout& l) {
  std::vector<std::int64_t> out;
  for (const auto& seq : l.batch)
    for (const Segment& s : seq) out.insert(out.end(), {static_cast<std::int64_t>(s.kind), s.count, s.h, s.w, s.pos});
  return out;
}

}  // namespace

TEST(Layout, TextPositionsAreSequenceIndices) {
  const auto p = positions({text(4)});
  ASSERT_EQ(p.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(p[i].y, i);
    EXPECT_EQ(p[i].x, i);
  }
}

TEST(Layout, ImagePositionsAreCentredAndTextResumesAfterTheSlice) {
  // 3 text tokens, a 2x3 image at L = 3, then text at L + w*h = 9.
  const auto p = positions({text(3), image(2, 3), text(1)});
  ASSERT_EQ(p.size(), 10u);
  // y = L + (w*h - h)/2 + r = 3 + 2 + r; x = L + (w*h - w)/2 + c = 3 + 1 + c (6 - 3 = 3, /2 -> 1).
  EXPECT_EQ(p[3].y, 5); EXPECT_EQ(p[3].x, 4);
  EXPECT_EQ(p[5].y, 5); EXPECT_EQ(p[5].x, 6);
  EXPECT_EQ(p[6].y, 6); EXPECT_EQ(p[6].x, 4);
  EXPECT_EQ(p[8].y, 6); EXPECT_EQ(p[8].x, 6);
  EXPECT_EQ(p[9].y, 9); EXPECT_EQ(p[9].x, 9);
}

TEST(Layout, MarkersReuseTheirPositionAndTakeASequenceSlot) {
  const auto p = positions({text(2), marker(2, 1), text(1)});
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[2].y, 1); EXPECT_EQ(p[3].x, 1);
  EXPECT_EQ(p[4].y, 4);
}

TEST(Layout, ThetaTableAsTheModelFormsIt) {
  const auto theta = theta_table({});
  ASSERT_EQ(theta.size(), 64u);
  EXPECT_EQ(theta[0], 1.0f);
  for (int k = 0; k < 64; ++k) {
    const double want = std::pow(10000.0, -2.0 * k / 128.0);
    EXPECT_NEAR(theta[k], want, want * 0x1p-22) << k;  // within two float32 roundings
  }
  // NTK: base * factor^(128/126) lowers every frequency but the first.
  const auto ntk = theta_table({.ntk_factor = 4.0});
  EXPECT_EQ(ntk[0], 1.0f);
  EXPECT_LT(ntk[10], theta[10]);
  EXPECT_NEAR(ntk[32], 1.0 / std::sqrt(10000.0 * std::pow(4.0, 128.0 / 126.0)), 1e-6);
}

TEST(Layout, AnglesInterleaveYAndXAndRepeat) {
  Layout layout;
  layout.batch = {{text(2), image(2, 2)}};
  const auto t = angles(layout);
  const auto theta = theta_table(layout.rope);
  ASSERT_EQ(t.size(), 6u * 128);
  // Token 3: image at L = 2, r = 0, c = 1: y = 2 + 1 + 0 = 3, x = 2 + 1 + 1 = 4.
  const float* row = &t[3 * 128];
  for (int d = 0; d < 64; ++d) {
    const float want = (d % 2 == 0 ? 3.0f : 4.0f) * theta[d];
    EXPECT_EQ(row[d], want) << d;
    EXPECT_EQ(row[d + 64], want) << d;
  }
}

TEST(Layout, RandomLayoutsAreDeterministicAndMixed) {
  const Layout a = random_layout(42, {.batch = 4, .seq_len = 8192});
  EXPECT_EQ(segments(a), segments(random_layout(42, {.batch = 4, .seq_len = 8192})));
  EXPECT_NE(segments(a), segments(random_layout(43, {.batch = 4, .seq_len = 8192})));
  int kinds[3] = {};
  for (const auto& seq : a.batch)
    for (const auto& s : seq) ++kinds[static_cast<int>(s.kind)];
  EXPECT_GT(kinds[0], 0);
  EXPECT_GT(kinds[1], 0);
  EXPECT_GT(kinds[2], 0);
}

