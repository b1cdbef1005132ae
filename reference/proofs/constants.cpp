// Prints the constants the proofs check, taken from the headers the verifier is built from
// (float32_bound.hpp, through tolerance_core.hpp's scalars): one "NAME value" line each, in
// hex floats, and NAME_LOWER and NAME_QUARTER, the value lowered by 2^-30 and by a quarter,
// for the negative controls.
// run_proofs.sh substitutes them for @NAME@ in the Gappa scripts.
#include <cmath>
#include <cstdio>

#include "rope2d/ref/float32_bound.hpp"

namespace {

void print(const char* name, double v) {
  std::printf("%s %a\n", name, v);
  std::printf("%s_LOWER %a\n", name, v - std::fabs(v) * 0x1p-30);
  std::printf("%s_QUARTER %a\n", name, v - std::fabs(v) * 0.25);
}

}  // namespace

int main() {
  const rope2d::ref::Float32Bound b = rope2d::ref::cuda_sincosf_bound;
  constexpr double u = 0x1p-24;
  print("U", u);
  print("K", b.k_ulp);
  print("ALPHA", b.alpha);
  print("C", b.c);
  print("CU", b.c * u);  // exact: a power of two
  print("D", b.d);
  print("ETA_GRAD", b.eta_grad);
  print("ETA_ABS", b.eta_abs);
  print("PRODUCT_WINDOW", b.product_window);
  // Half the smallest subnormal spacing: IEEE float32 rounding's absolute error below 2^-126.
  print("HALF_SPACING", rope2d::ref::subnormal_half_spacing);
  // |s - sin t| where sin t < 2^-126: k floats (spacing 2^-149) from RN(sin t), within
  // HALF_SPACING of sin t (exact: small multiples of 2^-150).
  print("SIN_ABS", b.k_ulp * 0x1p-149 + rope2d::ref::subnormal_half_spacing);
  print("EF", rope2d::ref::double_sincos_rel);
  print("TINY", 0x1p-126);  // the smallest normal float32 (formulas.def's TINY)
  return 0;
}
