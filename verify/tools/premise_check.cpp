// premise_check: compares a measurement of CUDA's sinf / cosf / sincosf (the JSON sincosf_ulp
// --json writes, schema rope2d.sincosf_ulp/1; the committed one is reports/premise/) with the
// premise the float32 bound is proved under, read from the header the proofs and the verifier
// are built from (float32_bound.hpp's cuda_sincosf_bound: sin and cos within k floats of the
// correctly rounded value, so within k + 1/2 ulp of the exact value, and in [-1, 1]). The
// reading is the verifier's (sincosf_measurement.hpp, its schema), the comparison the
// reference's (sincosf_premise.hpp), as rope2d nightly's are.
// Exit 0 when every measured figure is within the premise, 1 when one exceeds it (each named
// on a PREMISE EXCEEDED line), 2 on a missing or malformed file (file, field, expected, found).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "rope2d/ref/sincosf_premise.hpp"
#include "codec/sincosf_measurement.hpp"

namespace {

namespace ref = rope2d::ref;

int check(const std::string& path) {
  const ref::SincosfMeasurement m = rope2d::verify::read_sincosf_measurement(path);  // its schema first
  std::printf("premise (float32_bound.hpp, cuda_sincosf_bound): %s\n", ref::premise_words().c_str());
  std::printf("measured: %s, %s, CUDA runtime %s, %s\n", m.device.c_str(), m.date.c_str(), m.cuda_runtime.c_str(), m.range.c_str());
  int exceeded = 0;
  for (const ref::SincosfFigures& f : m.functions) {
    const std::vector<std::string> over = ref::premise_excesses(f);
    std::printf("%-12s %lld floats from the correctly rounded value, %.4f ulp from the exact value (MPFR re-check %.4f), "
                "%lld outside [-1, 1]: %s\n",
                f.function.c_str(), static_cast<long long>(f.max_floats_from_correctly_rounded), f.max_ulp_from_exact,
                f.mpfr_recheck_ulp, static_cast<long long>(f.outside_unit_interval), over.empty() ? "within the premise" : "EXCEEDS it");
    for (const std::string& line : over) std::printf("PREMISE EXCEEDED: %s\n", line.c_str());
    exceeded += !over.empty();
  }
  std::printf("%s\n", exceeded ? "premise_check: the measured error exceeds the premise the bound is proved under"
                               : "premise_check: the measurement is within the premise");
  return exceeded ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: premise_check MEASUREMENT.json   (written by sincosf_ulp --json)\n");
    return 2;
  }
  try {
    return check(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "premise_check: %s\n", e.what());
    return 2;
  }
}
