// Reading and writing floating-point literals: C99 hex floats and decimals in, hex out.
#pragma once

#include <string>
#include <string_view>

namespace rope2d::ref {

// Parses a decimal or C99 hex-float literal ("1.5", "-0x1.8p+3", "inf", "nan") exactly, as
// strtod does. Throws std::invalid_argument naming the text when it is not a whole number.
double parse_float(std::string_view text);

// "%a" of the value, e.g. 0x1.8p+1; for floats the value is printed as the float it is.
std::string hex(double x);
std::string hex(float x);

}  // namespace rope2d::ref
