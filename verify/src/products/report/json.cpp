// report.json, for tools: every set's metrics, tiers, worst and failing elements (hex floats)
// and its error histograms; and reading it back through its schema (json_schema.hpp) and the
// rules a schema cannot say.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rope2d/ref/floats.hpp"
#include "codec/input.hpp"
#include "codec/json_schema.hpp"
#include "codec/names.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace rope2d::verify {

namespace {

using ojson = nlohmann::ordered_json;

ojson finite_or_inf(double v) { return std::isfinite(v) ? ojson(v) : ojson("inf"); }

ojson element_json(const ElementReport& e) {
  return {{"index", e.index},   {"grad_cos", ref::hex(e.in.gc)}, {"grad_sin", ref::hex(e.in.gs)},
          {"idx_theta", ref::hex(e.in.t)}, {"ref", ref::hex(e.ref)}, {"got", ref::hex(e.got)},
          {"scaled_error", finite_or_inf(e.scaled_error)}, {"ulps", finite_or_inf(e.ulps)}};
}

ojson result_json(const SetResult& x, Tier gate) {
  ojson e;
  e["name"] = x.name;
  e["set"] = x.set;
  e["grad_dtype"] = dtype_name(x.dtype);
  e["disposition"] = name(x.disposition(gate));
  // Why, and SOL-ExecBench's status for it (status.hpp's one table; null: no trace line).
  const Cause c = x.cause(gate);
  e["cause"] = name(c);
  if (const auto st = sxb_status(c)) e["status"] = name(*st);
  else e["status"] = nullptr;
  if (!x.error.empty()) e["error"] = x.error;
  if (!x.supported()) e["not_supported"] = x.not_supported;
  if (!x.integrity.empty()) e["integrity"] = x.integrity;
  if (x.beyond_definition) e["beyond_definition"] = true;
  const Metrics& m = x.metrics;
  e["elements"] = m.count;
  e["correctly_rounded_fraction"] = m.count ? static_cast<double>(m.correctly_rounded) / m.count : 1.0;
  e["max_scaled_error"] = finite_or_inf(m.max_scaled);
  e["rms_scaled_error"] = finite_or_inf(m.rms_scaled());
  e["max_ulp"] = finite_or_inf(m.max_ulp);
  e["unwritten"] = m.poisoned;
  e["nonfinite_mismatch"] = m.nonfinite_mismatch;
  e["all_zero"] = m.all_zero;
  // What SOL-ExecBench's rules (the solexecbench tier) judge beyond the element counts.
  e["nonfinite"] = m.sxb.nonfinite;
  e["solexecbench"] = {{"all_zero", m.sxb.all_zero},
                       {"rounds", m.sxb.rounds},
                       {"failed_rounds", m.failed_rounds[static_cast<int>(Tier::solexecbench)]},
                       {"nan", m.sxb.nan},
                       {"max_abs", finite_or_inf(m.sxb.max_abs)},
                       {"max_rel", finite_or_inf(m.sxb.max_rel)}};
  for (Tier t : all_tiers) e["tiers"][std::string(name(t))] = {{"over", m.over[static_cast<int>(t)]}, {"pass", m.passes(t)}};
  // Subnormal behaviour observed (counts indexed by flush mask, 0 = IEEE) and how it was judged.
  e["subnormals"] = m.subnormals == Subnormals::ieee ? "ieee" : "flush_allowed";
  e["subnormal_mode"] = m.subnormal_mode();
  e["subnormal_modes"] = m.subnormal_modes;
  e["subnormal_unexplained"] = m.subnormal_unexplained;
  e["overflow_accepted"] = m.overflow_accepted;
  if (m.worst) e["worst"] = element_json(*m.worst);
  // The elements of the mismatch message's greatest differences (mismatch.hpp), where kept.
  if (m.greatest_abs) e["greatest_abs"] = element_json(*m.greatest_abs);
  if (m.greatest_rel) e["greatest_rel"] = element_json(*m.greatest_rel);
  for (const auto& f : m.failures) e["failures"].push_back(element_json(f));
  if (!x.reproduce.empty()) e["reproduce"] = x.reproduce;
  if (x.kernel_ms > 0) e["kernel_ms"] = x.kernel_ms;
  if (!x.shape.empty()) e["shape"] = x.shape;
  // What the plots are drawn from (Metrics::histogram, Metrics::max_by_angle).
  e["histogram"] = m.histogram;
  e["max_by_angle"] = m.max_by_angle;
  return e;
}

// Reading back: verify/schema/report.schema.json has typed every field read here before any of
// this runs (json_schema.hpp); what follows are the rules a schema cannot say, each naming the
// file and the field.

// A number, or "inf" as render_json writes infinite errors (the schema allows nothing else).
double number_or_inf(const ojson& v) { return v.is_string() ? std::numeric_limits<double>::infinity() : v.get<double>(); }
double number_or_inf(const ojson& o, const char* key) { return o.contains(key) ? number_or_inf(o[key]) : 0.0; }
std::int64_t count_or_zero(const ojson& o, const char* key) { return o.value(key, std::int64_t{0}); }

ElementReport read_element(const std::string& file, const ojson& o, const std::string& path) {
  auto hex_float = [&](const char* key) {
    const std::string s = o[key].get<std::string>();
    try {
      return ref::parse_float(s);
    } catch (const std::exception&) {  // the pattern passed, the value does not fit a double
      bad_input(file, path + "." + key, "a hex float", brief(o[key]));
    }
  };
  ElementReport e;
  e.index = o["index"].get<std::int64_t>();
  e.in.gc = hex_float("grad_cos");
  e.in.gs = hex_float("grad_sin");
  e.in.t = static_cast<float>(hex_float("idx_theta"));
  e.ref = static_cast<float>(hex_float("ref"));
  e.got = static_cast<float>(hex_float("got"));
  e.scaled_error = number_or_inf(o["scaled_error"]);
  e.ulps = number_or_inf(o["ulps"]);
  return e;
}

Metrics read_metrics(const std::string& file, const ojson& e, const std::string& p, bool with_plots) {
  Metrics m;
  m.count = e["elements"].get<std::int64_t>();
  m.correctly_rounded = std::llround(e["correctly_rounded_fraction"].get<double>() * static_cast<double>(m.count));
  m.max_scaled = number_or_inf(e["max_scaled_error"]);
  const double rms = number_or_inf(e["rms_scaled_error"]);
  m.sum_sq_scaled = rms * rms * static_cast<double>(m.count);
  m.max_ulp = number_or_inf(e["max_ulp"]);
  m.poisoned = e["unwritten"].get<std::int64_t>();
  m.nonfinite_mismatch = e["nonfinite_mismatch"].get<std::int64_t>();
  m.all_zero = e["all_zero"].get<bool>();
  // Reports written before SOL-ExecBench's rules were followed exactly lack these.
  m.sxb.nonfinite = count_or_zero(e, "nonfinite");
  if (e.contains("solexecbench")) {
    const ojson& x = e["solexecbench"];
    const std::string xp = p + ".solexecbench";
    m.sxb.all_zero = x["all_zero"].get<bool>();
    m.sxb.rounds = x["rounds"].get<std::int64_t>();
    // The solexecbench object records that tier's rounds and failed rounds: the format holds the
    // failed rounds of this tier only (another row judged by rounds would read back with none).
    std::int64_t& failed = m.failed_rounds[static_cast<int>(Tier::solexecbench)];
    failed = x["failed_rounds"].get<std::int64_t>();
    m.sxb.nan = x["nan"].get<std::int64_t>();
    m.sxb.max_abs = number_or_inf(x["max_abs"]);
    m.sxb.max_rel = number_or_inf(x["max_rel"]);
    if (m.sxb.nan > m.sxb.nonfinite) bad_input(file, xp + ".nan", "a count between 0 and nonfinite", std::to_string(m.sxb.nan));
    if (failed > m.sxb.rounds) bad_input(file, xp + ".failed_rounds", "a count between 0 and rounds", std::to_string(failed));
  }
  const ojson& tiers = e["tiers"];
  for (Tier t : all_tiers) {
    // Reports written before the tiers were renamed key them by the old names.
    std::string key(name(t));
    if (!tiers.contains(key) && !rule(t).old_name.empty() && tiers.contains(std::string(rule(t).old_name)))
      key = rule(t).old_name;
    if (!tiers.contains(key)) bad_input(file, p + ".tiers." + key, "{\"over\": N} (each tier of today)", "nothing");
    m.over[static_cast<int>(t)] = tiers[key]["over"].get<std::int64_t>();
  }
  // Reports written before subnormal modes and accepted overflows were recorded lack these.
  m.subnormals = e.value("subnormals", std::string()) == "ieee" ? Subnormals::ieee : Subnormals::flush_allowed;
  if (e.contains("subnormal_modes"))
    for (std::size_t k = 0; k < m.subnormal_modes.size(); ++k) m.subnormal_modes[k] = e["subnormal_modes"][k].get<std::int64_t>();
  m.subnormal_unexplained = count_or_zero(e, "subnormal_unexplained");
  m.overflow_accepted = count_or_zero(e, "overflow_accepted");
  if (e.contains("worst")) m.worst = read_element(file, e["worst"], p + ".worst");
  if (e.contains("greatest_abs")) m.greatest_abs = read_element(file, e["greatest_abs"], p + ".greatest_abs");
  if (e.contains("greatest_rel")) m.greatest_rel = read_element(file, e["greatest_rel"], p + ".greatest_rel");
  if (e.contains("failures"))
    for (std::size_t k = 0; k < e["failures"].size(); ++k)
      m.failures.push_back(read_element(file, e["failures"][k], fmt::format("{}.failures[{}]", p, k)));
  if (with_plots) {  // plot data in every result or in none
    for (const char* key : {"histogram", "max_by_angle"})
      if (!e.contains(key)) bad_input(file, p + "." + key, "an array (the first result has plot data)", "nothing");
    for (std::size_t k = 0; k < m.histogram.size(); ++k) m.histogram[k] = e["histogram"][k].get<std::int64_t>();
    for (std::size_t k = 0; k < m.max_by_angle.size(); ++k) m.max_by_angle[k] = number_or_inf(e["max_by_angle"][k]);
  }
  return m;
}

SetResult read_result(const std::string& file, const ojson& e, const std::string& p, Tier gate, bool with_plots) {
  SetResult x;
  x.name = e["name"].get<std::string>();
  x.set = e["set"].get<std::string>();
  x.dtype = ref::parse_dtype(e["grad_dtype"].get<std::string>());  // a dtype's name or "" (none), by the schema
  x.error = e.value("error", std::string());
  x.not_supported = e.value("not_supported", std::string());
  x.integrity = e.value("integrity", std::string());
  x.reproduce = e.value("reproduce", std::string());
  x.kernel_ms = number_or_inf(e, "kernel_ms");
  if (e.contains("shape")) x.shape = e["shape"].get<std::vector<std::int64_t>>();
  x.beyond_definition = e.value("beyond_definition", false);
  x.metrics = read_metrics(file, e, p, with_plots);
  // The recorded cause gives the kind of the error or of the findings (reports written before
  // causes were recorded: runtime and integrity, as they were reported then).
  const bool has_cause = e.contains("cause");
  const Cause cause = has_cause ? parse_cause(e["cause"].get<std::string>(), p + ".cause") : Cause::runtime;
  if (has_cause && error_cause(cause)) x.error_cause = cause;
  if (has_cause && finding_cause(cause)) x.finding_cause = cause;
  // The recorded disposition must follow from the recorded numbers under today's tiers.
  const Disposition d = parse_disposition(e["disposition"].get<std::string>(), p + ".disposition");
  if (d != x.disposition(gate))
    bad_input(file, p + ".disposition", fmt::format("\"{}\" (from the recorded metrics)", name(x.disposition(gate))),
              fmt::format("\"{}\"", name(d)));
  // And the cause and its status from the recorded error, findings and metrics.
  if (has_cause) {
    if (x.cause(gate) != cause)
      bad_input(file, p + ".cause", fmt::format("\"{}\" (from the recorded error, findings and metrics)", name(x.cause(gate))),
                fmt::format("\"{}\"", name(cause)));
    const std::optional<SxbStatus> st = sxb_status(cause);
    const ojson s = e.value("status", ojson());
    const std::string want = st ? "\"" + std::string(name(*st)) + "\"" : std::string("null");
    if (st ? !(s.is_string() && s.get<std::string>() == name(*st)) : !s.is_null())
      bad_input(file, p + ".status", want + " (from the cause)", e.contains("status") ? brief(nlohmann::json(s)) : "nothing");
  }
  return x;
}

}  // namespace

std::string render_json(const Report& r) {
  ojson j;
  j["title"] = r.title;
  j["timestamp"] = r.timestamp;
  for (const auto& [k, v] : r.header) j["header"][k] = v;
  j["gate"] = name(r.gate);
  j["verdict"] = name(r.verdict());
  j["warnings"] = r.warnings;
  ojson tiers = ojson::array();
  for (Tier t : all_tiers) tiers.push_back({{"tier", name(t)}, {"source", rule(t).source}});
  j["tiers"] = tiers;
  const Metrics all = overall(r);
  j["subnormal_mode"] = all.subnormal_mode();
  j["overflow_accepted"] = all.overflow_accepted;
  for (const auto& x : r.results) j["results"].push_back(result_json(x, r.gate));
  // Names may hold bytes that are not UTF-8: written as U+FFFD rather than refused.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Report read_report_json(const std::string& path) {
  const ojson j = read_ordered_json_file(path, JsonFormat::report);  // the header's keys in the file's order
  Report r;
  r.title = j["title"].get<std::string>();
  r.timestamp = j.value("timestamp", std::string());  // reports written before it was recorded: empty
  const std::string gate = j["gate"].get<std::string>();
  std::string deprecated;  // reports written before the tiers were renamed: read silently
  const auto tier = parse_tier(gate, &deprecated);
  if (!tier) bad_input(path, "gate", "a tier name", brief(nlohmann::json(gate)));
  r.gate = *tier;
  if (j.contains("header"))
    for (const auto& [k, v] : j["header"].items()) r.header.push_back({k, v.get<std::string>()});
  r.warnings = j.value("warnings", std::vector<std::string>());
  if (j.contains("results")) {
    const ojson& res = j["results"];
    // Reports written before the histograms were recorded can be read, but not plotted.
    r.has_plot_data = !res.empty() && res[0].contains("histogram");
    r.has_subnormal_data = j.contains("subnormal_mode");
    for (std::size_t k = 0; k < res.size(); ++k)
      r.results.push_back(read_result(path, res[k], fmt::format("results[{}]", k), r.gate, r.has_plot_data));
  }
  const Disposition verdict = parse_disposition(j["verdict"].get<std::string>(), "verdict");
  if (verdict != r.verdict())
    bad_input(path, "verdict", fmt::format("\"{}\" (from the results)", name(r.verdict())), fmt::format("\"{}\"", name(verdict)));
  return r;
}

}  // namespace rope2d::verify
