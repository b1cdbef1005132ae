// A position layout drawn as SVG: one band per sequence along its token index, text runs,
// image blocks and marker tokens in their own colours, each with its position range.
#pragma once

#include <string>

#include "rope2d/ref/layout.hpp"

namespace rope2d::verify {

// caption: where the layout came from (a file name, a seed); any bytes.
std::string layout_svg(const ref::Layout& layout, const std::string& caption);

}  // namespace rope2d::verify
