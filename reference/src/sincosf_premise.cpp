// A measurement of sinf / cosf / sincosf read strictly and compared with the bound's premise
// (sincosf_premise.hpp).
#include "rope2d/ref/sincosf_premise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "rope2d/ref/input.hpp"

namespace rope2d::ref {

using nlohmann::json;

namespace {

// Every key of obj one of `known`; else the first other one is named.
void only_keys(const json& obj, const std::set<std::string>& known, const std::string& where, const std::string& parent) {
  for (const auto& [k, v] : obj.items())
    if (!known.count(k)) {
      std::string list;
      for (const std::string& n : known) list += (list.empty() ? "" : ", ") + n;
      bad_input(where, parent + k.substr(0, 60), "only " + list, "this field");
    }
}

// A string field of at most max bytes (a device name, a date: shown in reports).
std::string short_string(const json& obj, const std::string& key, const std::string& where, std::size_t max,
                         const std::string& parent = "") {
  std::string s = string_field(obj, key, where, parent);
  if (s.size() > max) bad_input(where, parent + key, "a string of at most " + std::to_string(max) + " bytes", brief(obj[key]));
  return s;
}

// A finite float32 written as a C99 hex float ("-0x1.8f5c76p+21"), as sincosf_ulp prints its %a.
std::string hex_float32(const json& obj, const std::string& key, const std::string& where, const std::string& parent) {
  const std::string s = short_string(obj, key, where, 40, parent);
  const std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  const bool hex = s.size() > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  char* end = nullptr;
  const double x = hex ? std::strtod(s.c_str(), &end) : 0.0;
  if (!hex || end != s.c_str() + s.size() || !std::isfinite(x) || static_cast<double>(static_cast<float>(x)) != x)
    bad_input(where, parent + key, "a finite float32 as a C99 hex float", brief(obj[key]));
  return s;
}

SincosfFigures figures_of(const json& fns, const std::string& name, const std::string& where) {
  const std::string at = "functions." + name;
  if (!fns.contains(name) || !fns[name].is_object()) bad_input(where, at, "an object", fns.contains(name) ? brief(fns[name]) : "nothing");
  const json& f = fns[name];
  const std::string parent = at + ".";
  only_keys(f, {"max_ulp_from_exact", "at_x", "mpfr_recheck_ulp", "max_floats_from_correctly_rounded", "outside_unit_interval"}, where,
            parent);
  SincosfFigures s;
  s.function = name;
  s.max_ulp_from_exact = number_field(f, "max_ulp_from_exact", where, 0, 1e9, parent);
  s.at_x = hex_float32(f, "at_x", where, parent);
  s.mpfr_recheck_ulp = number_field(f, "mpfr_recheck_ulp", where, 0, 1e9, parent);
  // At most the 2^32 inputs, and floats apart at most 2^32.
  s.max_floats_from_correctly_rounded = int_field(f, "max_floats_from_correctly_rounded", where, 0, std::int64_t{1} << 32, parent);
  s.outside_unit_interval = int_field(f, "outside_unit_interval", where, 0, std::int64_t{1} << 32, parent);
  return s;
}

std::string printed(const char* format, double x) {
  char b[64];
  std::snprintf(b, sizeof b, format, x);
  return b;
}

}  // namespace

SincosfMeasurement read_sincosf_measurement(const std::string& path) {
  const json m = read_json_file(path, 1 << 20);
  if (!m.is_object()) bad_input(path, "(top)", "a JSON object (sincosf_ulp --json)", brief(m));
  const std::string schema = string_field(m, "schema", path);
  if (schema != sincosf_measurement_schema)
    bad_input(path, "schema", std::string("\"") + sincosf_measurement_schema + "\"", brief(m["schema"]));
  only_keys(m, {"schema", "source", "date", "device", "compute_capability", "cuda_runtime", "cuda_driver", "seconds", "range", "functions"},
            path, "");
  SincosfMeasurement out;
  out.source = short_string(m, "source", path, 1000);
  out.date = short_string(m, "date", path, 64);
  out.device = short_string(m, "device", path, 256);
  out.compute_capability = short_string(m, "compute_capability", path, 16);
  out.cuda_runtime = short_string(m, "cuda_runtime", path, 16);
  out.cuda_driver = short_string(m, "cuda_driver", path, 16);
  out.seconds = number_field(m, "seconds", path, 0, 1e7);
  out.range = short_string(m, "range", path, 1000);
  if (!m.contains("functions") || !m["functions"].is_object())
    bad_input(path, "functions", "an object", m.contains("functions") ? brief(m["functions"]) : "nothing");
  const json& fns = m["functions"];
  only_keys(fns, std::set<std::string>(std::begin(sincosf_measured_functions), std::end(sincosf_measured_functions)), path, "functions.");
  for (const char* name : sincosf_measured_functions) out.functions.push_back(figures_of(fns, name, path));
  return out;
}

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
