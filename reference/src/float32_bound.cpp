// The float32 error bound (the float32-bound tier), evaluated for one element.
#include "rope2d/ref/float32_bound.hpp"

#include <cmath>

namespace rope2d::ref {

double allowed_error(const Float32Bound& b, double scale, double exact, double gc) {
  const double eta = b.eta_grad * std::fabs(gc) + b.eta_abs;
  return b.c * 0x1p-24 * scale + b.d * std::fabs(exact) + eta;
}

}  // namespace rope2d::ref
