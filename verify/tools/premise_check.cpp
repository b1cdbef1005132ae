// premise_check: compares a measurement of CUDA's sinf / cosf / sincosf (the JSON sincosf_ulp
// --json writes, schema rope2d.sincosf_ulp/1; the committed one is reports/premise/) with the
// premise the float32 bound is proved under, read from the header the proofs and the verifier
// are built from (float32_bound.hpp's cuda_sincosf_bound: sin and cos within k floats of the
// correctly rounded value, so within k + 1/2 ulp of the exact value, and in [-1, 1]).
// Exit 0 when every measured figure is within the premise, 1 when one exceeds it (each named
// on a PREMISE EXCEEDED line), 2 on a missing or malformed file (file, field, expected, found).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "rope2d/ref/float32_bound.hpp"
#include "rope2d/verify/json_schema.hpp"

namespace {

using nlohmann::json;
namespace ref = rope2d::ref;

// The four functions sincosf_ulp measures: the kernels call sincosf, sinf and cosf.
constexpr const char* functions[] = {"sinf", "cosf", "sincosf.sin", "sincosf.cos"};

int check(const std::string& path) {
  // Every field typed and ranged first: verify/schema/sincosf-ulp.schema.json.
  const json m = rope2d::verify::read_json_file(path, rope2d::verify::JsonFormat::sincosf_ulp);
  const json& fns = m["functions"];
  const double k = ref::cuda_sincosf_bound.k_ulp;
  std::printf("premise (float32_bound.hpp, cuda_sincosf_bound): within %g floats of the correctly rounded value, "
              "%g ulp of the exact value, results in [-1, 1]\n",
              k, k + 0.5);
  std::printf("measured: %s, %s, CUDA runtime %s, %s\n", m["device"].get<std::string>().c_str(),
              m["date"].get<std::string>().c_str(), m["cuda_runtime"].get<std::string>().c_str(),
              m["range"].get<std::string>().c_str());
  int exceeded = 0;
  for (const char* name : functions) {
    const json& f = fns[name];
    const double ulp = f["max_ulp_from_exact"].get<double>();
    const std::int64_t floats = f["max_floats_from_correctly_rounded"].get<std::int64_t>();
    const std::int64_t outside = f["outside_unit_interval"].get<std::int64_t>();
    const bool ok = static_cast<double>(floats) <= k && ulp <= k + 0.5 && outside == 0;
    std::printf("%-12s %lld floats from the correctly rounded value, %.4f ulp from the exact value, %lld outside [-1, 1]: %s\n",
                name, static_cast<long long>(floats), ulp, static_cast<long long>(outside), ok ? "within the premise" : "EXCEEDS it");
    if (static_cast<double>(floats) > k)
      std::printf("PREMISE EXCEEDED: %s measured %lld floats from the correctly rounded value > k = %g\n", name,
                  static_cast<long long>(floats), k);
    if (ulp > k + 0.5) std::printf("PREMISE EXCEEDED: %s measured %.9g ulp from the exact value > %g\n", name, ulp, k + 0.5);
    if (outside != 0)
      std::printf("PREMISE EXCEEDED: %s returned %lld values outside [-1, 1]\n", name, static_cast<long long>(outside));
    exceeded += !ok;
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
