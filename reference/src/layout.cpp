// Positions, theta tables and float32 angles of mixed text-image layouts; random layouts.
#include "rope2d/ref/layout.hpp"

#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "rope2d/ref/random.hpp"

namespace rope2d::ref {

namespace mp = boost::multiprecision;
// 200 bits: far beyond what correct rounding of these powers to double or float32 needs.
using Real = mp::number<mp::mpfr_float_backend<61>, mp::et_off>;

namespace {

void fail(const std::string& field, const std::string& what) {
  throw std::invalid_argument("layout: " + field + ": " + what);
}

std::string g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

constexpr std::int64_t max_exact_position = std::int64_t{1} << 24;  // float32 holds every integer below

}  // namespace

std::int64_t Layout::seq_len() const {
  if (batch.empty()) return 0;
  std::int64_t n = 0;
  for (const Segment& s : batch.front()) n += s.tokens();
  return n;
}

void validate(const Layout& layout) {
  const RopeConfig& r = layout.rope;
  if (r.head_dim <= 0 || r.head_dim % 4 != 0)
    fail("rope.head_dim", "expected a positive multiple of 4, found " + std::to_string(r.head_dim));
  if (!(r.base > 0) || !std::isfinite(r.base)) fail("rope.base", "expected a positive finite number");
  if (!(r.ntk_factor > 0) || !std::isfinite(r.ntk_factor))
    fail("rope.ntk_factor", "expected a positive finite number");
  if (layout.batch.empty()) fail("batch", "expected at least one sequence");
  const std::int64_t len = layout.seq_len();
  for (std::size_t b = 0; b < layout.batch.size(); ++b) {
    const std::string where = "batch[" + std::to_string(b) + "]";
    std::int64_t n = 0;
    for (std::size_t i = 0; i < layout.batch[b].size(); ++i) {
      const Segment& s = layout.batch[b][i];
      const std::string seg = where + "[" + std::to_string(i) + "]";
      if (s.kind == Segment::Kind::image && (s.h <= 0 || s.w <= 0))
        fail(seg, "image sides must be positive, found " + std::to_string(s.h) + "x" + std::to_string(s.w));
      if (s.kind != Segment::Kind::image && s.count <= 0)
        fail(seg, "token count must be positive, found " + std::to_string(s.count));
      if (s.tokens() > max_exact_position)
        fail(seg, "more than 2^24 tokens: " + std::to_string(s.tokens()));
      if (s.kind == Segment::Kind::marker && (s.pos < 0 || s.pos >= max_exact_position))
        fail(seg + ".pos", "expected 0 <= pos < 2^24, found " + std::to_string(s.pos));
      n += s.tokens();
    }
    if (n == 0) fail(where, "empty sequence");
    if (n != len)
      fail(where, "seq_len " + std::to_string(n) + " differs from batch[0]'s " + std::to_string(len));
  }
  // Image positions reach at most 1.5x the slice end; keep every position exact in float32.
  if (len * 3 / 2 + 1 >= max_exact_position)
    fail("batch", "seq_len " + std::to_string(len) + " too long for exact float32 positions");
  if (static_cast<double>(layout.batch.size()) * static_cast<double>(len) * r.head_dim > 0x1p31)
    fail("batch", "at most 2^31 elements (batch x seq_len x head_dim), found " + std::to_string(layout.batch.size()) + " x " +
                      std::to_string(len) + " x " + std::to_string(r.head_dim));
  // The float32 table actually used: base 1e-300 rounds to 0 in float32 and gives infinite
  // theta; base above float32's range gives theta 0 (every angle but the first pair zero).
  const std::vector<float> theta = theta_table(r);
  for (std::size_t k = 0; k < theta.size(); ++k) {
    const float t = theta[k];
    if (!std::isnormal(t) || t < 0 || !std::isfinite(t * static_cast<float>(max_exact_position)))
      fail("rope.base", "expected a base whose float32 theta table is positive, normal and finite at every position; "
                        "theta[" + std::to_string(k) + "] is " + g(t) + " (base " + g(r.base) + ", ntk_factor " +
                        g(r.ntk_factor) + ")");
  }
}

std::vector<Position> positions(const std::vector<Segment>& sequence) {
  std::vector<Position> out;
  std::int64_t start = 0;
  for (const Segment& s : sequence) {
    switch (s.kind) {
      case Segment::Kind::text:
        for (std::int64_t i = 0; i < s.count; ++i) out.push_back({start + i, start + i});
        break;
      case Segment::Kind::marker:
        for (std::int64_t i = 0; i < s.count; ++i) out.push_back({s.pos, s.pos});
        break;
      case Segment::Kind::image: {
        const std::int64_t hw = std::int64_t{s.h} * s.w;
        const std::int64_t y0 = start + (hw - s.h) / 2, x0 = start + (hw - s.w) / 2;
        for (int r = 0; r < s.h; ++r)
          for (int c = 0; c < s.w; ++c) out.push_back({y0 + r, x0 + c});
        break;
      }
    }
    start += s.tokens();
  }
  return out;
}

std::vector<float> theta_table(const RopeConfig& rope) {
  // base as Python forms it (a double), then widened into the float32 pow as torch does.
  double base = rope.base;
  if (rope.ntk_factor != 1.0) {
    const Real e = Real(rope.head_dim) / Real(rope.head_dim - 2);
    base = (Real(rope.base) * pow(Real(rope.ntk_factor), e)).convert_to<double>();
  }
  const float base32 = static_cast<float>(base);
  std::vector<float> theta(rope.head_dim / 2);
  for (int k = 0; k < rope.head_dim / 2; ++k) {
    const float e = static_cast<float>(2 * k) / static_cast<float>(rope.head_dim);
    const Real p = pow(Real(static_cast<double>(base32)), Real(static_cast<double>(e)));
    const float p32 = mpfr_get_flt(p.backend().data(), MPFR_RNDN);
    theta[k] = 1.0f / p32;
  }
  return theta;
}

std::vector<float> angles(const std::vector<Position>& pos, const std::vector<float>& theta, int head_dim) {
  const int half = head_dim / 2;
  std::vector<float> out(pos.size() * head_dim);
  for (std::size_t i = 0; i < pos.size(); ++i) {
    const float y = static_cast<float>(pos[i].y), x = static_cast<float>(pos[i].x);
    for (int d = 0; d < head_dim; ++d) {
      const int k = d % half;
      out[i * head_dim + d] = (k % 2 == 0 ? y : x) * theta[k];
    }
  }
  return out;
}

std::vector<float> angles(const Layout& layout) {
  validate(layout);
  const std::vector<float> theta = theta_table(layout.rope);
  std::vector<Position> all;
  for (const auto& seq : layout.batch) {
    const auto p = positions(seq);
    all.insert(all.end(), p.begin(), p.end());
  }
  return angles(all, theta, layout.rope.head_dim);
}

Layout random_layout(std::uint64_t seed, const LayoutSpec& spec) {
  if (spec.batch <= 0 || spec.seq_len <= 0 || spec.max_image_side <= 0)
    throw std::invalid_argument("random_layout: batch, seq_len and max_image_side must be positive");
  Random rng(seed);
  Layout layout;
  if (spec.vary_rope) {
    const double bases[] = {10000.0, 500000.0, 1000000.0};
    layout.rope.base = rng.chance(0.5) ? bases[rng.below(3)] : static_cast<double>(rng.between(100, 2000000));
    layout.rope.ntk_factor = rng.chance(0.5) ? 1.0 : 1.0 + static_cast<double>(rng.below(64)) / 8.0;
  }
  for (int b = 0; b < spec.batch; ++b) {
    std::vector<Segment> seq;
    std::int64_t used = 0;
    while (used < spec.seq_len) {
      const std::int64_t left = spec.seq_len - used;
      const double pick = rng.uniform();
      Segment s;
      if (pick < 0.35 && left >= 1) {
        const int h = static_cast<int>(rng.between(1, spec.max_image_side));
        const int w = static_cast<int>(rng.between(1, spec.max_image_side));
        if (std::int64_t{h} * w <= left) {
          s.kind = Segment::Kind::image;
          s.h = h;
          s.w = w;
        }
      } else if (pick < 0.45 && used > 0) {
        s.kind = Segment::Kind::marker;
        s.count = std::min<std::int64_t>(left, rng.between(1, 2));
        // Markers reuse the position just before them, or an earlier one.
        s.pos = rng.chance(0.7) ? used - 1 : rng.between(0, used - 1);
      }
      if (s.tokens() == 0) {
        s.kind = Segment::Kind::text;
        s.count = std::min<std::int64_t>(left, rng.between(1, 512));
      }
      used += s.tokens();
      seq.push_back(s);
    }
    layout.batch.push_back(std::move(seq));
  }
  validate(layout);
  return layout;
}

}  // namespace rope2d::ref
