// The report plots as SVG: the error histogram per grad dtype and the largest error by angle
// binade, both bar charts drawn on the shared canvas.
#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "rope2d/verify/report.hpp"

namespace rope2d::verify {

namespace svg {

std::string num(double v) { return fmt::format("{:.1f}", v); }

Canvas::Canvas(double width, double height, int font_size) {
  root_ = xml::add(doc_, "svg",
                   {{"xmlns", "http://www.w3.org/2000/svg"}, {"width", num(width)}, {"height", num(height)},
                    {"font-family", "sans-serif"}, {"font-size", std::to_string(font_size)}});
}

pugi::xml_node Canvas::rect(double x, double y, double w, double h, const std::string& fill, std::string_view tooltip) {
  pugi::xml_node r = xml::add(root_, "rect", {{"x", num(x)}, {"y", num(y)}, {"width", num(w)}, {"height", num(h)}, {"fill", fill}});
  if (!tooltip.empty()) xml::add(r, "title", {}, tooltip);
  return r;
}

pugi::xml_node Canvas::text(double x, double y, std::string_view s, xml::Attrs extra) {
  pugi::xml_node t = xml::add(root_, "text", {{"x", num(x)}, {"y", num(y)}}, s);
  for (const auto& [k, v] : extra) t.append_attribute(k).set_value(xml::xml_safe(v).c_str());
  return t;
}

pugi::xml_node Canvas::line(double x1, double y1, double x2, double y2, const std::string& stroke) {
  return xml::add(root_, "line", {{"x1", num(x1)}, {"y1", num(y1)}, {"x2", num(x2)}, {"y2", num(y2)}, {"stroke", stroke}});
}

}  // namespace svg

namespace {

using Series = std::vector<std::pair<std::string, std::vector<double>>>;

// A bar chart: one series per label, bars side by side.
std::string bar_svg(const std::string& title, const std::vector<std::string>& xlabels, const Series& series, bool log_scale,
                    const std::string& ylabel) {
  const double w = 900, h = 360, left = 60, bottom = 60, top = 40;
  const double plot_w = w - left - 20, plot_h = h - top - bottom;
  double ymax = 0;
  for (const auto& [name, v] : series)
    for (double y : v) ymax = std::max(ymax, log_scale ? std::log10(1 + y) : y);
  if (ymax <= 0) ymax = 1;
  const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
  svg::Canvas c(w, h);
  c.text(left, 20, title, {{"font-size", "14"}});
  const std::string mid = svg::num(top + plot_h / 2);
  c.text(10, top + plot_h / 2, ylabel, {{"transform", "rotate(-90 10 " + mid + ")"}});
  const double slot = plot_w / std::max<std::size_t>(1, xlabels.size());
  const double bar = slot * 0.8 / std::max<std::size_t>(1, series.size());
  for (std::size_t si = 0; si < series.size(); ++si) {
    const auto& [name, v] = series[si];
    for (std::size_t i = 0; i < v.size() && i < xlabels.size(); ++i) {
      const double y = log_scale ? std::log10(1 + v[i]) : v[i];
      const double bh = plot_h * y / ymax;
      c.rect(left + i * slot + si * bar, top + plot_h - bh, bar, bh, colors[si % 4], fmt::format("{} {}: {}", name, xlabels[i], v[i]));
    }
    c.rect(w - 160, top + 14 * si, 10, 10, colors[si % 4]);
    c.text(w - 145, top + 9 + 14 * si, name);
  }
  for (std::size_t i = 0; i < xlabels.size(); ++i) {
    const double x = left + i * slot, y = h - bottom + 14;
    c.text(x, y, xlabels[i], {{"transform", fmt::format("rotate(45 {} {})", svg::num(x), svg::num(y))}});
  }
  c.line(left, top + plot_h, w - 20, top + plot_h);
  return c.str();
}

// Every set that ran, merged per grad dtype.
std::map<std::string, Metrics> by_dtype(const Report& r) {
  std::map<std::string, Metrics> m;
  for (const auto& s : r.results)
    if (s.ran()) m[s.dtype].merge(s.metrics, 0);
  return m;
}

}  // namespace

std::string render_error_histogram_svg(const Report& r) {
  // Bin 0 is exact; bin k in 1..18 holds scaled errors up to 2^(k-9) (Metrics::histogram).
  std::vector<std::string> xs{"exact"};
  for (int k = 1; k < 19; ++k) xs.push_back(fmt::format("<=2^{}", k - 9));
  xs.push_back("beyond");
  Series s;
  for (const auto& [d, m] : by_dtype(r)) s.push_back({d, std::vector<double>(m.histogram.begin(), m.histogram.end())});
  return bar_svg("Error histogram (units of 2^-24 S), per grad dtype", xs, s, true, "log10(1 + count)");
}

std::string render_error_by_angle_svg(const Report& r) {
  std::vector<std::string> xs{"|t|<1"};
  for (int k = 1; k < 26; ++k) xs.push_back(fmt::format("2^{}", k - 1));
  Series s;
  for (const auto& [d, m] : by_dtype(r)) s.push_back({d, std::vector<double>(m.max_by_angle.begin(), m.max_by_angle.end())});
  return bar_svg("Largest error by angle binade (units of 2^-24 S)", xs, s, false, "max error");
}

}  // namespace rope2d::verify
