// The shared SVG canvas (svg.hpp) and its value axis: round ticks on a linear axis from zero,
// decades on a logarithmic one, chosen by how far the values spread.
#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace rope2d::verify::svg {

std::string num(double v) { return fmt::format("{:.1f}", v); }

Canvas::Canvas(double width, double height, int font_size) {
  root_ = xml::add(doc_, "svg",
                   {{"xmlns", "http://www.w3.org/2000/svg"}, {"width", num(width)}, {"height", num(height)},
                    {"viewBox", "0 0 " + num(width) + " " + num(height)}, {"font-family", "sans-serif"},
                    {"font-size", std::to_string(font_size)}});
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

double Axis::at(double v) const {
  if (log) {
    if (!(v > lo)) return 0;
    return std::min(1.0, std::log10(v / lo) / std::log10(hi / lo));
  }
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

Axis value_axis(double min_positive, double max, bool allow_log) {
  Axis a;
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  if (allow_log && min_positive > 0 && max / min_positive >= 100) {
    a.log = true;
    // Decades around the data, the lowest strictly below the smallest value so its bar shows.
    int lo = static_cast<int>(std::floor(std::log10(min_positive)));
    if (std::pow(10.0, lo) >= min_positive) --lo;
    const int hi = static_cast<int>(std::ceil(std::log10(max)));
    a.lo = std::pow(10.0, lo);
    a.hi = std::pow(10.0, std::max(hi, lo + 1));
    const int step = std::max(1, (hi - lo + 7) / 8);  // at most about 8 labelled decades
    for (int k = lo; k <= hi; k += step) a.ticks.push_back(std::pow(10.0, k));
    return a;
  }
  // A round step giving 4 to 10 ticks from zero.
  const double raw = max / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  a.hi = std::ceil(max / step - 1e-9) * step;
  for (int k = 0; k * step <= a.hi * (1 + 1e-9); ++k) a.ticks.push_back(k * step);
  return a;
}

std::string tick_label(double v) {
  if (v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3)) return fmt::format("{:.0e}", v);
  return fmt::format("{:g}", v);
}

void draw_y_axis(Canvas& c, const Frame& f, const Axis& a, const std::string& title) {
  for (double t : a.ticks) {
    const double y = f.bottom() - f.height * a.at(t);
    c.line(f.left, y, f.left + f.width, y, "#e0e0e0");
    c.line(f.left - 4, y, f.left, y);
    c.text(f.left - 6, y + 4, tick_label(t), {{"text-anchor", "end"}});
  }
  c.line(f.left, f.top, f.left, f.bottom());
  c.line(f.left, f.bottom(), f.left + f.width, f.bottom());
  const double mid = f.top + f.height / 2;
  c.text(14, mid, title + (a.log ? " (log scale)" : ""),
         {{"text-anchor", "middle"}, {"transform", fmt::format("rotate(-90 14 {})", num(mid))}});
}

void draw_note(Canvas& c, const Frame& f, const std::string& note) {
  const double w = std::min(f.width - 20, 7.0 * note.size() + 24), x = f.left + (f.width - w) / 2, y = f.top + f.height / 2 - 18;
  c.rect(x, y, w, 36, "#fffbe6").append_attribute("stroke").set_value("#b58900");
  c.text(f.left + f.width / 2, y + 23, note, {{"text-anchor", "middle"}, {"font-size", "13"}, {"class", "note"}});
}

const std::string& series_color(std::size_t i) {
  static const std::array<std::string, 6> colors = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"};
  return colors[i % colors.size()];
}

}  // namespace rope2d::verify::svg
