// Reading and checking the nightly configuration (nightly_config.hpp).
#include "rope2d/verify/nightly_config.hpp"

#include <bit>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/suites.hpp"

namespace rope2d::verify {

using nlohmann::json;
using ref::bad_input;
using ref::brief;

NightlyConfig read_nightly_config(const std::string& path) {
  NightlyConfig c;
  if (path.empty()) return c;
  const json j = ref::read_json_file(path);
  if (!j.is_object()) bad_input(path, "(top)", "an object", brief(j));
  for (const auto& [k, v] : j.items())
    if (k != "submissions" && k != "grad_dtypes" && k != "sweep")
      bad_input(path, k.substr(0, 40), "only submissions, grad_dtypes and sweep", "this field");
  if (j.contains("grad_dtypes")) {
    const json& d = j["grad_dtypes"];
    if (!d.is_array() || d.empty()) bad_input(path, "grad_dtypes", "a non-empty array of " + ref::grad_dtype_names(", "), brief(d));
    c.grad_dtypes.clear();
    std::set<std::string> seen;
    for (std::size_t i = 0; i < d.size(); ++i) {
      const std::string field = "grad_dtypes[" + std::to_string(i) + "]";
      if (!d[i].is_string() || !ref::parse_dtype(d[i].get<std::string>())) bad_input(path, field, ref::grad_dtype_names(), brief(d[i]));
      if (!seen.insert(d[i].get<std::string>()).second) bad_input(path, field, "each dtype once", brief(d[i]) + " twice");
      c.grad_dtypes.push_back(d[i]);
    }
  }
  if (j.contains("sweep")) {
    const json& s = j["sweep"];
    const std::string& where = path;
    if (!s.is_object()) bad_input(path, "sweep", "an object of from, to, angles, budget_s", brief(s));
    for (const auto& [k, v] : s.items())
      if (k != "from" && k != "to" && k != "budget_s" && k != "angles")
        bad_input(where, "sweep." + k.substr(0, 40), "only from, to, angles and budget_s", "this field");
    if (s.contains("angles")) {
      if (!s["angles"].is_string() || s["angles"] != "all") bad_input(where, "sweep.angles", "\"all\"", brief(s["angles"]));
      if (s.contains("from") || s.contains("to")) bad_input(where, "sweep.angles", "angles or from/to, not both", "both");
      c.sweep_all = true;
    }
    // Angles are float32: the sweep's ends must be exact float32 values in range.
    if (s.contains("from")) c.sweep_from = static_cast<float>(ref::number_field(s, "from", where, 0.0, 3.4e38, "sweep."));
    if (s.contains("to")) c.sweep_to = static_cast<float>(ref::number_field(s, "to", where, 0.0, 3.4e38, "sweep."));
    if (s.contains("budget_s")) c.sweep_budget_s = ref::number_field(s, "budget_s", where, 1e-3, 86400.0, "sweep.");
    if (!(c.sweep_to > c.sweep_from))
      bad_input(where, "sweep.to", "a value above from (" + std::to_string(c.sweep_from) + ")", std::to_string(c.sweep_to));
  }
  if (j.contains("submissions")) {
    const json& s = j["submissions"];
    if (!s.is_array()) bad_input(path, "submissions", "an array of paths", brief(s));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::string field = "submissions[" + std::to_string(i) + "]";
      if (!s[i].is_string() || s[i].get<std::string>().empty() || s[i].get<std::string>().find('\0') != std::string::npos)
        bad_input(path, field, "a non-empty path", brief(s[i]));
      const std::string p = s[i];
      if (!std::filesystem::is_regular_file(p)) bad_input(path, field, "an existing regular file", brief(s[i]));
      if (!seen.insert(p).second) bad_input(path, field, "each submission once", brief(s[i]) + " twice");
      c.submissions.push_back(p);
    }
  }
  return c;
}

}  // namespace rope2d::verify
