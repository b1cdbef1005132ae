// A sincosf measurement read through its schema (sincosf_measurement.hpp).
#include "codec/sincosf_measurement.hpp"

#include <cmath>
#include <cstdlib>

#include "codec/input.hpp"
#include "codec/json_schema.hpp"

namespace rope2d::verify {

using nlohmann::json;

ref::SincosfMeasurement read_sincosf_measurement(const std::string& path) {
  const json m = read_json_file(path, JsonFormat::sincosf_ulp);
  ref::SincosfMeasurement out;
  out.source = m["source"];
  out.date = m["date"];
  out.device = m["device"];
  out.compute_capability = m["compute_capability"];
  out.cuda_runtime = m["cuda_runtime"];
  out.cuda_driver = m["cuda_driver"];
  out.seconds = m["seconds"];
  out.range = m["range"];
  for (const char* name : ref::sincosf_measured_functions) {
    const json& f = m["functions"][name];
    ref::SincosfFigures s;
    s.function = name;
    s.max_ulp_from_exact = f["max_ulp_from_exact"];
    s.at_x = f["at_x"];
    s.mpfr_recheck_ulp = f["mpfr_recheck_ulp"];
    s.max_floats_from_correctly_rounded = f["max_floats_from_correctly_rounded"];
    s.outside_unit_interval = f["outside_unit_interval"];
    // The pattern says a C99 hex float; that it is a finite float32 is said here.
    const double x = std::strtod(s.at_x.c_str(), nullptr);
    if (!std::isfinite(x) || static_cast<double>(static_cast<float>(x)) != x)
      bad_input(path, std::string("functions.") + name + ".at_x", "a finite float32 as a C99 hex float", brief(f["at_x"]));
    out.functions.push_back(std::move(s));
  }
  return out;
}

}  // namespace rope2d::verify
