// Position layouts of mixed text-image sequences and the float32 angles the model forms from
// them, as HunyuanImage-3.0's build_2d_rope does.
//
//   text token at sequence index i:          y = x = i
//   h x w image whose slice starts at L:      y = L + (w*h - h)/2 + r,  x = L + (w*h - w)/2 + c
//                                             (r < h, c < w, row-major, integer division);
//                                             the next segment starts at L + w*h
//   marker tokens:                            y = x = pos, an explicit (often reused) position;
//                                             each still takes one sequence index
//   theta[k] = fl32(1 / fl32(base^fl32(fl32(2k) / head_dim))),  k < head_dim/2,
//              base = fl32(base * factor^(head_dim/(head_dim-2)))   (NTK rescale)
//   angle[d] = fl32(y * theta[d']) for even d', fl32(x * theta[d']) for odd d', d' = d mod head_dim/2
// Powers are correctly rounded (MPFR), so the tables are the same on every platform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rope2d::ref {

struct Segment {
  enum class Kind { text, image, marker };
  Kind kind = Kind::text;
  std::int64_t count = 0;  // tokens of a text run or marker segment
  int h = 0, w = 0;        // image size in tokens
  std::int64_t pos = 0;    // the 1D position every token of a marker segment takes

  std::int64_t tokens() const { return kind == Kind::image ? std::int64_t{h} * w : count; }
};

struct RopeConfig {
  int head_dim = 128;
  double base = 10000.0;
  double ntk_factor = 1.0;
};

struct Layout {
  RopeConfig rope;
  std::vector<std::vector<Segment>> batch;  // one segment list per sequence

  std::int64_t seq_len() const;  // of the first sequence; validate() checks they agree
  std::int64_t elements() const { return static_cast<std::int64_t>(batch.size()) * seq_len() * rope.head_dim; }
};

struct Position {
  std::int64_t y, x;
};

// Throws std::invalid_argument naming the field when a layout cannot be built: no sequences,
// sequences of unequal length, head_dim not a positive multiple of 4, base or factor not
// positive, empty or negative segments, positions beyond 2^24 (not exact in float32).
void validate(const Layout& layout);

std::vector<Position> positions(const std::vector<Segment>& sequence);
std::vector<float> theta_table(const RopeConfig& rope);
// [batch, seq_len, head_dim] angles, row-major.
std::vector<float> angles(const Layout& layout);
// The same, from positions [batch, seq_len] and a theta table (the fused kernel's inputs).
std::vector<float> angles(const std::vector<Position>& positions, const std::vector<float>& theta,
                          int head_dim);

// Random layout with the given shape: text runs, images from 1x1 to max_image_side squared,
// marker tokens reusing earlier positions; base and factor drawn when vary_rope is set.
struct LayoutSpec {
  int batch = 1;
  std::int64_t seq_len = 1024;
  int max_image_side = 64;
  bool vary_rope = false;
};
Layout random_layout(std::uint64_t seed, const LayoutSpec& spec);


}  // namespace rope2d::ref
