// The float32 error bound (the float32-bound tier), evaluated for one element.
#include "rope2d/ref/float32_bound.hpp"

#include <cmath>

namespace rope2d::ref {

double allowed_error(const Float32Bound& b, double scale, double exact, double gc) {
  const double eta = (b.k_ulp + 1) * 0x1p-149 * std::fabs(gc) + 0x1p-148;
  return b.c * 0x1p-24 * scale + b.d * std::fabs(exact) + eta;
}

}  // namespace rope2d::ref
