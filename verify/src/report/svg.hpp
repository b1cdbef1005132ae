// A small SVG canvas over pugixml, shared by the report plots and the layout drawing:
// shapes with coordinates rounded to 0.1 px, tooltips as <title> children.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace rope2d::verify::svg
