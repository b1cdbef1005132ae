// A small SVG canvas over pugixml, shared by the report plots, the layout drawing and the
// nightly dashboard: shapes with coordinates rounded to 0.1 px, tooltips as <title> children,
// and a value axis (linear, or logarithmic where the data spans decades) with its ticks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xml.hpp"

namespace rope2d::verify::svg {

class Canvas {
 public:
  Canvas(double width, double height, int font_size = 11);
  pugi::xml_node rect(double x, double y, double w, double h, const std::string& fill, std::string_view tooltip = {});
  pugi::xml_node text(double x, double y, std::string_view s, xml::Attrs extra = {});
  pugi::xml_node line(double x1, double y1, double x2, double y2, const std::string& stroke = "black");
  pugi::xml_node root() { return root_; }
  std::string str() const { return xml::to_string(doc_); }

 private:
  pugi::xml_document doc_;
  pugi::xml_node root_;
};

std::string num(double v);  // a coordinate: one decimal

// The plotting area of a chart, in pixels.
struct Frame {
  double left, top, width, height;
  double bottom() const { return top + height; }
};

// A value axis over [lo, hi]: linear from zero, or logarithmic (decades) when the positive
// values given span a factor of 100 or more. Ticks at round values (1, 2, 5 x 10^k; powers of
// ten on a log axis), each labelled.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
  // Where v lies, 0 at lo and 1 at hi (clamped; zero and below lo on a log axis give 0).
  double at(double v) const;
};
Axis value_axis(double min_positive, double max, bool allow_log = true);
std::string tick_label(double v);  // 0.5, 6, 1000, 1e+05

// The vertical axis on the frame's left edge: tick marks, grid lines, labels, a rotated title
// ("... (log scale)" on a log axis).
void draw_y_axis(Canvas& c, const Frame& f, const Axis& a, const std::string& title);

// A note in a framed box at the middle of the frame (a plot with nothing to draw says why).
void draw_note(Canvas& c, const Frame& f, const std::string& note);

// The colours of series 0, 1, ... (colour-blind safe, cycled).
const std::string& series_color(std::size_t i);

}  // namespace rope2d::verify::svg
