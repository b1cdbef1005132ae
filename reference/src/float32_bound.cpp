// The float32 error bound (the float32-bound tier), evaluated for one element.
#include "rope2d/ref/float32_bound.hpp"

#include "rope2d/ref/bound_formulas.hpp"

#include <cmath>

namespace rope2d::ref {

// formulas.def's bound(S, |exact|, |gc|) (generated: bound_formulas.hpp), with b's constants.
double allowed_error(const Float32Bound& b, double scale, double exact, double gc) {
  formula::BoundConstants k{};
  k.U = 0x1p-24;
  k.CU = b.c * 0x1p-24;  // exact: a power-of-two scaling
  k.D = b.d;
  k.ETA_GRAD = b.eta_grad;
  k.ETA_ABS = b.eta_abs;
  k.TINY = 0x1p-126;
  return formula::bound(k, scale, std::fabs(exact), std::fabs(gc));
}

}  // namespace rope2d::ref
