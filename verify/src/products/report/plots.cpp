// The report's two plots as SVG, per grad dtype: how many elements fall in each error bin
// (powers of two of 2^-24 S) and the largest error in each binade of the angle. Both carry
// values on both axes, the gate's allowance as a dashed line, a log scale where the values span
// decades, and a note instead of an empty frame when there is nothing to draw.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

#include "rope2d/verify/products/report_files.hpp"
#include "rope2d/verify/model/tolerance.hpp"
#include "svg.hpp"

namespace rope2d::verify {

namespace {

using Series = std::vector<std::pair<std::string, std::vector<double>>>;

constexpr double plot_w = 900, plot_h = 420;
const svg::Frame plot_frame{80, 56, plot_w - 80 - 24, plot_h - 56 - 104};

// Every set that ran, merged per grad dtype (in the enum's order; a set of none first).
using ByDtype = std::map<std::optional<ref::Dtype>, Metrics>;
ByDtype metrics_by_dtype(const Report& r) {
  ByDtype m;
  for (const auto& s : r.results)
    if (s.ran()) m[s.dtype].merge(s.metrics, 0);
  return m;
}

// The axis over every value of every series (and `also`, a line that must show, when > 0).
svg::Axis axis_of(const Series& s, double also = 0) {
  double lo = also > 0 ? also : INFINITY, hi = also;
  for (const auto& [name, v] : s)
    for (double y : v)
      if (y > 0 && std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y);
  return svg::value_axis(std::isfinite(lo) ? lo : 0, also > 0 ? std::max(hi, also * 1.15) : hi);
}

// Bars side by side per category, labels under the frame, the legend above it on the right.
void draw_bars(svg::Canvas& c, const svg::Frame& f, const svg::Axis& a, const std::vector<std::string>& xs, const Series& s) {
  const double slot = f.width / std::max<std::size_t>(1, xs.size());
  const double bar = slot * 0.8 / std::max<std::size_t>(1, s.size());
  for (std::size_t si = 0; si < s.size(); ++si) {
    const auto& [name, v] = s[si];
    for (std::size_t i = 0; i < v.size() && i < xs.size(); ++i) {
      const double bh = f.height * a.at(v[i]);
      c.rect(f.left + i * slot + slot * 0.1 + si * bar, f.bottom() - bh, bar, bh, svg::series_color(si),
             fmt::format("{} {}: {}", name, xs[i], svg::tick_label(v[i])));
    }
    const double lx = f.left + f.width - 70.0 * (s.size() - si);
    c.rect(lx, f.top - 22, 12, 12, svg::series_color(si));
    c.text(lx + 16, f.top - 12, name);
  }
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = f.left + (i + 0.5) * slot, y = f.bottom() + 12;
    c.line(x, f.bottom(), x, f.bottom() + 4);
    c.text(x, y, xs[i], {{"text-anchor", "end"}, {"transform", fmt::format("rotate(-45 {} {})", svg::num(x), svg::num(y))}});
  }
}

// The gate's allowance in units of 2^-24 S: its S term (the |ref| and subnormal terms add to it
// per element), or 0 for a tier whose allowance is no multiple of S (solexecbench).
double allowance_units(Tier gate) {
  const TierRule& t = rule(gate);
  return t.bound_based ? t.scale_coeff * 0x1p24 : 0;
}

std::string allowance_caption(Tier gate) {
  const TierRule& t = rule(gate);
  if (!t.bound_based)
    return fmt::format("No allowance line: the gate {} allows {:g} + {:g} |ref|, no multiple of S.", t.name, t.atol, t.ref_coeff);
  return fmt::format("Dashed: the gate {} allows {} x 2^-24 S (+ {:.3g} x 2^-24 |ref| and a subnormal term, per element).", t.name,
                     svg::tick_label(t.scale_coeff * 0x1p24), t.ref_coeff * 0x1p24);
}

// Nothing to draw: no set ran, or every element is exact.
std::string empty_note(const ByDtype& m) {
  if (m.empty()) return "No set ran: nothing to plot";
  for (const auto& [d, x] : m)
    if (x.max_scaled > 0 || std::any_of(x.histogram.begin() + 1, x.histogram.end(), [](auto n) { return n > 0; })) return "";
  return "Every element exact: each output is the correctly rounded result";
}

void draw_allowance_label(svg::Canvas& c, double x, double y, const std::string& s, const char* anchor = "start") {
  // A white halo keeps the label readable where it crosses the bars.
  c.text(x, y, s, {{"fill", "#c00000"}, {"text-anchor", anchor}, {"stroke", "white"}, {"stroke-width", "3"}, {"paint-order", "stroke"}});
}

// What a plot says in words: above the frame, along the value axis, under the categories.
struct PlotText {
  std::string_view title, y_axis, x_axis;
};

// Both plots: one Metrics array per grad dtype as bars over the categories xs, on a value axis
// that reaches `also` (when > 0), with its words; `allowance` then draws the gate's allowance on
// the canvas and axis, and the allowance's caption and the note where nothing is drawn close it.
template <class Array>
std::string bar_plot(const Report& r, const PlotText& text, const std::vector<std::string>& xs, Array Metrics::*values,
                     double also, const std::function<void(svg::Canvas&, const svg::Axis&)>& allowance) {
  const auto by = metrics_by_dtype(r);
  Series s;
  for (const auto& [d, m] : by) s.push_back({std::string(dtype_name(d)), std::vector<double>((m.*values).begin(), (m.*values).end())});
  const svg::Frame& f = plot_frame;
  svg::Canvas c(plot_w, plot_h);
  c.text(f.left, 20, text.title, {{"font-size", "14"}});
  const svg::Axis a = axis_of(s, also);
  svg::draw_y_axis(c, f, a, std::string(text.y_axis));
  draw_bars(c, f, a, xs, s);
  c.text(f.left + f.width / 2, plot_h - 30, text.x_axis, {{"text-anchor", "middle"}});
  allowance(c, a);
  c.text(f.left, plot_h - 10, allowance_caption(r.gate), {{"font-size", "10"}});
  if (const std::string note = empty_note(by); !note.empty()) svg::draw_note(c, f, note);
  return c.str();
}

}  // namespace

std::string render_error_histogram_svg(const Report& r) {
  // Bin 0 is exact; bin k in 1..18 holds scaled errors up to 2^(k-9) (Metrics::histogram).
  std::vector<std::string> xs{"exact"};
  for (int k = 1; k < 19; ++k) xs.push_back(fmt::format("<=2^{}", k - 9));
  xs.push_back("beyond");
  const PlotText text{"Elements by error (units of 2^-24 S), per grad dtype", "elements",
                      "error, in units of 2^-24 S (bin upper edges)"};
  return bar_plot(r, text, xs, &Metrics::histogram, 0, [&](svg::Canvas& c, const svg::Axis&) {
    // The allowance where it falls in the bins: bin k (1..18) spans (2^(k-10), 2^(k-9)], one slot each.
    const double v = allowance_units(r.gate);
    if (!(v > 0)) return;
    const svg::Frame& f = plot_frame;
    const double slot = f.width / xs.size(), l2 = std::log2(v);
    const int k = std::clamp(static_cast<int>(std::ceil(l2)) + 9, 1, 19);
    const double x = k >= 19 ? f.left + f.width : f.left + slot * (k + std::clamp(l2 - (k - 10), 0.0, 1.0));
    c.line(x, f.top - 4, x, f.bottom(), "#c00000").append_attribute("stroke-dasharray").set_value("6 4");
    draw_allowance_label(c, x - 4, f.top + 10, fmt::format("allowance {}{}", svg::tick_label(v), k >= 19 ? " (beyond the axis)" : ""),
                         "end");
  });
}

std::string render_error_by_angle_svg(const Report& r) {
  std::vector<std::string> xs{"|t|<1"};
  for (int k = 1; k < 26; ++k) xs.push_back(fmt::format("2^{}", k - 1));
  const PlotText text{"Largest error by angle binade (units of 2^-24 S), per grad dtype", "largest error, x 2^-24 S",
                      "|angle| from (binade lower edge, radians)"};
  const double v = allowance_units(r.gate);
  return bar_plot(r, text, xs, &Metrics::max_by_angle, v, [&](svg::Canvas& c, const svg::Axis& a) {
    if (!(v > 0)) return;
    const svg::Frame& f = plot_frame;
    const double y = f.bottom() - f.height * a.at(v);
    c.line(f.left, y, f.left + f.width, y, "#c00000").append_attribute("stroke-dasharray").set_value("6 4");
    draw_allowance_label(c, f.left + f.width - 4, y - 4, "allowance " + svg::tick_label(v), "end");
  });
}

}  // namespace rope2d::verify
