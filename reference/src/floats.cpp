// Float literal parsing and hex-float formatting.
#include "rope2d/ref/floats.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace rope2d::ref {

double parse_float(std::string_view text) {
  const std::string s(text);
  if (s.empty()) throw std::invalid_argument("empty number");
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size())
    throw std::invalid_argument("not a number: '" + s + "'");
  if (errno == ERANGE && std::isinf(x))
    throw std::invalid_argument("out of double range: '" + s + "'");
  return x;
}

std::string hex(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

std::string hex(float x) { return hex(static_cast<double>(x)); }

}  // namespace rope2d::ref
