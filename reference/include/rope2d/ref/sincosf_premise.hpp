// The premise of the float32 bound measured: a measurement of CUDA's sinf, cosf and sincosf
// over every float32 input (sincosf_ulp --json, schema rope2d.sincosf_ulp/1, read by the
// verifier: verify/src/codec/sincosf_measurement.hpp), and compared with the premise the bound is proved under (float32_bound.hpp's
// cuda_sincosf_bound: within k floats of the correctly rounded value, so within k + 1/2 ulp of
// the exact value, and in [-1, 1]). premise_check and rope2d nightly both compare here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rope2d/ref/float32_bound.hpp"

namespace rope2d::ref {

inline constexpr const char* sincosf_measurement_schema = "rope2d.sincosf_ulp/1";

// The four functions measured, in the file's order: the kernels call sincosf, sinf and cosf.
inline constexpr const char* sincosf_measured_functions[] = {"sinf", "cosf", "sincosf.sin", "sincosf.cos"};

// One function's figures, over every finite float32 input.
struct SincosfFigures {
  std::string function;
  double max_ulp_from_exact = 0;  // against double sin/cos on the GPU
  std::string at_x;               // its argument, a C99 hex float
  double mpfr_recheck_ulp = 0;    // the same error at at_x, from sin/cos at 256 bits
  std::int64_t max_floats_from_correctly_rounded = 0;
  std::int64_t outside_unit_interval = 0;  // results outside [-1, 1]
};

struct SincosfMeasurement {
  std::string source, date, device, compute_capability, cuda_runtime, cuda_driver, range;
  double seconds = 0;
  std::vector<SincosfFigures> functions;  // in sincosf_measured_functions' order
};

// Read through the verifier's schema of the file (verify/src/codec/sincosf_measurement.hpp).

// Where a function's figures exceed the premise b, one sentence each naming the function, the
// measured figure and the premise's: more than k floats from the correctly rounded value; more
// than k + 1/2 ulp from the exact value (the larger of the GPU's figure and the MPFR re-check);
// a result outside [-1, 1]. Empty when within.
std::vector<std::string> premise_excesses(const SincosfFigures& f, const Float32Bound& b = cuda_sincosf_bound);

// "within 2 floats of the correctly rounded value (2.5 ulp of the exact value), results in
// [-1, 1]": the premise b in words, as the reports state it.
std::string premise_words(const Float32Bound& b = cuda_sincosf_bound);

}  // namespace rope2d::ref
