// Drawing a layout: each sequence is a band of width proportional to its tokens; a segment
// is a rectangle whose tooltip gives its token span and (y, x) position ranges, the facts
// that set the angles (angle = position * theta, so the largest position bounds them).
#include "products/report/layout_svg.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "svg.hpp"

namespace rope2d::verify {

namespace {

struct Span {
  std::int64_t first = 0, last = 0;  // sequence indices [first, last)
  std::int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
};

const char* kind_name(ref::Segment::Kind k) {
  return k == ref::Segment::Kind::text ? "text" : k == ref::Segment::Kind::image ? "image" : "marker";
}
const char* kind_color(ref::Segment::Kind k) {
  return k == ref::Segment::Kind::text ? "#1f77b4" : k == ref::Segment::Kind::image ? "#ff7f0e" : "#d62728";
}

std::string describe(const ref::Segment& s, const Span& p) {
  const std::string range = p.y0 == p.x0 && p.y1 == p.x1 ? fmt::format("y = x in [{}, {}]", p.y0, p.y1)
                                                        : fmt::format("y in [{}, {}], x in [{}, {}]", p.y0, p.y1, p.x0, p.x1);
  const std::string what = s.kind == ref::Segment::Kind::image ? fmt::format("image {}x{}", s.h, s.w)
                           : s.kind == ref::Segment::Kind::marker ? fmt::format("marker x{} at {}", s.count, s.pos)
                                                                  : fmt::format("text x{}", s.count);
  return fmt::format("{}: tokens [{}, {}), {}", what, p.first, p.last, range);
}

}  // namespace

std::string layout_svg(const ref::Layout& layout, const std::string& caption) {
  const double left = 90, right = 20, top = 60, band = 36, gap = 28, plot_w = 1000;
  const std::int64_t len = std::max<std::int64_t>(1, layout.seq_len());
  const double scale = plot_w / static_cast<double>(len);
  const double height = top + layout.batch.size() * (band + gap) + 20;
  svg::Canvas c(left + plot_w + right, height);
  c.text(10, 20, fmt::format("Layout: {} ({} x {} tokens, head_dim {}, base {}, NTK factor {})", caption, layout.batch.size(), len,
                             layout.rope.head_dim, layout.rope.base, layout.rope.ntk_factor),
         {{"font-size", "14"}});
  double lx = 10;
  for (auto k : {ref::Segment::Kind::text, ref::Segment::Kind::image, ref::Segment::Kind::marker}) {
    c.rect(lx, 30, 12, 12, kind_color(k)).append_attribute("stroke").set_value("#333333");
    c.text(lx + 16, 41, kind_name(k));
    lx += 70;
  }
  for (std::size_t b = 0; b < layout.batch.size(); ++b) {
    const auto& seq = layout.batch[b];
    const std::vector<ref::Position> pos = ref::positions(seq);
    const double y = top + b * (band + gap);
    c.text(10, y + band / 2 + 4, fmt::format("seq {}", b));
    std::int64_t at = 0;
    std::vector<std::pair<double, double>> markers;  // x and width: drawn over the later segments
    for (const auto& s : seq) {
      Span p{at, at + s.tokens()};
      p.y0 = p.x0 = INT64_MAX;
      p.y1 = p.x1 = INT64_MIN;
      for (std::int64_t i = p.first; i < p.last && i < static_cast<std::int64_t>(pos.size()); ++i) {
        p.y0 = std::min(p.y0, pos[i].y), p.y1 = std::max(p.y1, pos[i].y);
        p.x0 = std::min(p.x0, pos[i].x), p.x1 = std::max(p.x1, pos[i].x);
      }
      if (p.last == p.first) p.y0 = p.y1 = p.x0 = p.x1 = 0;
      const double x = left + p.first * scale, w = (p.last - p.first) * scale;
      if (s.kind == ref::Segment::Kind::marker) {
        // Markers are a token or a few among thousands: drawn at least 3 px wide, reaching above
        // the band, with no white edge (which hid them), and again on top of the band below.
        c.rect(x, y - 6, std::max(3.0, w), band + 6, kind_color(s.kind), describe(s, p));
        markers.push_back({x, std::max(3.0, w)});
      } else {
        c.rect(x, y, std::max(0.5, w), band, kind_color(s.kind), describe(s, p)).append_attribute("stroke").set_value("white");
      }
      if (w > 60) c.text(x + 3, y + band + 12, fmt::format("{}..{}", std::min(p.y0, p.x0), std::max(p.y1, p.x1)), {{"font-size", "9"}});
      at = p.last;
    }
    for (const auto& [mx, mw] : markers) c.rect(mx, y - 6, mw, band + 6, kind_color(ref::Segment::Kind::marker));
    c.line(left, y + band, left + plot_w, y + band, "#888888");
  }
  return c.str();
}

}  // namespace rope2d::verify
