// A measurement of sinf / cosf / sincosf compared with the bound's premise (sincosf_premise.hpp;
// the file is read by the verifier, verify/src/codec/sincosf_measurement.hpp).
#include "rope2d/ref/sincosf_premise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace rope2d::ref {

namespace {

std::string printed(const char* format, double x) {
  char b[64];
  std::snprintf(b, sizeof b, format, x);
  return b;
}

}  // namespace

std::vector<std::string> premise_excesses(const SincosfFigures& f, const Float32Bound& b) {
  std::vector<std::string> out;
  const double k = b.k_ulp;
  if (static_cast<double>(f.max_floats_from_correctly_rounded) > k)
    out.push_back(f.function + " measured " + std::to_string(f.max_floats_from_correctly_rounded) +
                  " floats from the correctly rounded value, the premise allows k = " + printed("%g", k));
  // From the exact value: the GPU's figure against double, or its re-check at 256 bits where
  // that is larger (the two differ by at most 2^-27 ulp: sincosf_ulp.cu).
  const bool recheck = f.mpfr_recheck_ulp > f.max_ulp_from_exact;
  const double ulp = std::max(f.max_ulp_from_exact, f.mpfr_recheck_ulp);
  if (ulp > k + 0.5)
    out.push_back(f.function + " measured " + printed("%.9g", ulp) + " ulp from the exact value" + (recheck ? " (MPFR re-check)" : "") +
                  ", the premise allows " + printed("%g", k + 0.5) + " (k + 1/2)");
  if (f.outside_unit_interval != 0)
    out.push_back(f.function + " returned " + std::to_string(f.outside_unit_interval) +
                  " values outside [-1, 1], the premise allows none");
  return out;
}

std::string premise_words(const Float32Bound& b) {
  return "within " + printed("%g", b.k_ulp) + " floats of the correctly rounded value (" + printed("%g", b.k_ulp + 0.5) +
         " ulp of the exact value), results in [-1, 1]";
}

}  // namespace rope2d::ref
