// Reading and checking the nightly configuration (nightly_config.hpp).
#include "codec/nightly_config.hpp"

#include <bit>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "codec/input.hpp"
#include "codec/json_schema.hpp"

namespace rope2d::verify {

using nlohmann::json;

std::string kernel_name(const std::string& submission) {
  return submission.empty() ? "rope2d" : std::filesystem::path(submission).stem().string();
}

NightlyConfig read_nightly_config(const std::string& path) {
  NightlyConfig c;
  if (path.empty()) return c;
  // Types, ranges, known fields and dtypes once each: verify/schema/nightly-config.schema.json.
  const json j = read_json_file(path, JsonFormat::nightly_config);
  if (j.contains("grad_dtypes")) {
    c.grad_dtypes.clear();
    // Each a dtype's name by the schema. Not the schema's uniqueItems: valijson compares every
    // pair, quadratic in a long list; here a dtype seen before is the field's error.
    std::set<ref::Dtype> seen;
    for (std::size_t i = 0; i < j["grad_dtypes"].size(); ++i) {
      const json& name = j["grad_dtypes"][i];
      const std::optional<ref::Dtype> d = ref::parse_dtype(name.get<std::string>());
      const std::string field = "grad_dtypes[" + std::to_string(i) + "]";
      if (!d) bad_input(path, field, ref::grad_dtype_names(), brief(name));  // not reached: the schema lets only names through
      if (!seen.insert(*d).second) bad_input(path, field, "each dtype once", brief(name) + " twice");
      c.grad_dtypes.push_back(*d);
    }
  }
  if (j.contains("sweep")) {
    const json& s = j["sweep"];
    if (s.contains("angles")) {
      if (s.contains("from") || s.contains("to")) bad_input(path, "sweep.angles", "angles or from/to, not both", "both");
      c.sweep_all = true;
    }
    // Angles are float32: the sweep's ends are the float32 values of the numbers given.
    // -0 passes the schema's minimum but is the bit pattern 0x80000000, above every positive
    // angle's: a range from it would be empty, and the sweep skipped.
    for (const char* end : {"from", "to"})
      if (s.contains(end) && std::signbit(s[end].get<double>()))
        bad_input(path, std::string("sweep.") + end, "an angle >= +0 (-0 is the float32 pattern 0x80000000)", brief(s[end]));
    if (s.contains("from")) c.sweep_from = static_cast<float>(s["from"].get<double>());
    if (s.contains("to")) c.sweep_to = static_cast<float>(s["to"].get<double>());
    if (s.contains("budget_s")) c.sweep_budget_s = s["budget_s"].get<double>();
    if (!(c.sweep_to > c.sweep_from))
      bad_input(path, "sweep.to", "a value above from (" + std::to_string(c.sweep_from) + ")", std::to_string(c.sweep_to));
  }
  if (j.contains("submissions")) {
    const json& s = j["submissions"];
    std::set<std::string> seen, names;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::string field = "submissions[" + std::to_string(i) + "]";
      const std::string p = s[i];
      if (p.find('\0') != std::string::npos) bad_input(path, field, "a non-empty path", brief(s[i]));
      if (!std::filesystem::is_regular_file(p)) bad_input(path, field, "an existing regular file", brief(s[i]));
      if (!seen.insert(p).second) bad_input(path, field, "each submission once", brief(s[i]) + " twice");
      // The kernel name names the submission's report folder: one name, one kernel.
      const std::string name = kernel_name(p);
      if (name == kernel_name(""))
        bad_input(path, field, "a kernel name other than this project's kernel's (\"" + name + "\")", brief(s[i]));
      if (!names.insert(name).second)
        bad_input(path, field, "each kernel name (the file's name without its ending) once", brief(s[i]) + ", a second \"" + name + "\"");
      c.submissions.push_back(p);
    }
  }
  return c;
}

}  // namespace rope2d::verify
