// report.json, for tools: every set's metrics, tiers, worst and failing elements (hex floats)
// and its error histograms; and reading it back, validated field by field.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rope2d/ref/floats.hpp"
#include "rope2d/verify/report.hpp"

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
  e["grad_dtype"] = x.dtype;
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

// Field access that names the file and the field (as a path: results[3].worst.ref) when a
// value is missing or of the wrong type. Found values are described by type, never dumped.
struct Reader {
  std::string file;

  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const {
    throw std::invalid_argument(fmt::format("{}: field {}: expected {}, found {}", file, field, expected, found));
  }
  const ojson* get(const ojson& o, const std::string& path, const char* key, bool required) const {
    if (!o.is_object()) fail(path, "an object", o.type_name());
    const auto it = o.find(key);
    if (it == o.end()) {
      if (required) fail(path + "." + key, "a value", "nothing");
      return nullptr;
    }
    return &*it;
  }
  std::string str(const ojson& o, const std::string& path, const char* key, bool required = true) const {
    const ojson* v = get(o, path, key, required);
    if (!v) return {};
    if (!v->is_string()) fail(path + "." + key, "a string", v->type_name());
    return v->get<std::string>();
  }
  std::int64_t integer(const ojson& o, const std::string& path, const char* key, bool required = true) const {
    const ojson* v = get(o, path, key, required);
    if (!v) return 0;
    if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<std::uint64_t>() > INT64_MAX))
      fail(path + "." + key, "an integer", v->is_number() ? "a non-integer number" : v->type_name());
    return v->get<std::int64_t>();
  }
  bool boolean(const ojson& o, const std::string& path, const char* key) const {
    const ojson* v = get(o, path, key, true);
    if (!v->is_boolean()) fail(path + "." + key, "true or false", v->type_name());
    return v->get<bool>();
  }
  // A number, or "inf" as render_json writes infinite errors.
  double number(const ojson& v, const std::string& field) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string() && v.get<std::string>() == "inf") return std::numeric_limits<double>::infinity();
    fail(field, "a number or \"inf\"", v.is_string() ? "another string" : v.type_name());
  }
  double number(const ojson& o, const std::string& path, const char* key, bool required = true) const {
    const ojson* v = get(o, path, key, required);
    return v ? number(*v, path + "." + key) : 0.0;
  }
  double hex_float(const ojson& o, const std::string& path, const char* key) const {
    const std::string s = str(o, path, key);
    try {
      return ref::parse_float(s);
    } catch (const std::exception&) {
      fail(path + "." + key, "a hex float", "\"" + s.substr(0, 40) + "\"");
    }
  }
  ElementReport element(const ojson& o, const std::string& path) const {
    ElementReport e;
    e.index = integer(o, path, "index");
    e.in.gc = hex_float(o, path, "grad_cos");
    e.in.gs = hex_float(o, path, "grad_sin");
    e.in.t = static_cast<float>(hex_float(o, path, "idx_theta"));
    e.ref = static_cast<float>(hex_float(o, path, "ref"));
    e.got = static_cast<float>(hex_float(o, path, "got"));
    e.scaled_error = number(o, path, "scaled_error");
    e.ulps = number(o, path, "ulps");
    return e;
  }
  template <class Array, class Get>
  void array(const ojson& o, const std::string& path, const char* key, Array& out, Get get) const {
    const ojson* v = get_(o, path, key);
    if (!v->is_array() || v->size() != out.size())
      fail(path + "." + key, fmt::format("an array of {}", out.size()), v->is_array() ? fmt::format("{} entries", v->size()) : v->type_name());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = get((*v)[k], fmt::format("{}.{}[{}]", path, key, k));
  }
  const ojson* get_(const ojson& o, const std::string& path, const char* key) const { return get(o, path, key, true); }
};

// A disposition's name, checked (disposition.hpp): a name that is none fails naming the file
// and the field.
Disposition read_disposition(const Reader& rd, const ojson& o, const std::string& path, const char* key) {
  const std::string text = rd.str(o, path, key);
  try {
    return parse_disposition(text, path.empty() ? std::string(key) : path + "." + key);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(rd.file + ": field " + e.what());
  }
}

Metrics read_metrics(const Reader& rd, const ojson& e, const std::string& p, bool with_plots) {
  Metrics m;
  m.count = rd.integer(e, p, "elements");
  if (m.count < 0) rd.fail(p + ".elements", "a count >= 0", std::to_string(m.count));
  const double cr = rd.number(e, p, "correctly_rounded_fraction");
  if (!(cr >= 0 && cr <= 1)) rd.fail(p + ".correctly_rounded_fraction", "a fraction in [0, 1]", fmt::format("{}", cr));
  m.correctly_rounded = std::llround(cr * static_cast<double>(m.count));
  m.max_scaled = rd.number(e, p, "max_scaled_error");
  const double rms = rd.number(e, p, "rms_scaled_error");
  m.sum_sq_scaled = rms * rms * static_cast<double>(m.count);
  m.max_ulp = rd.number(e, p, "max_ulp");
  m.poisoned = rd.integer(e, p, "unwritten");
  m.nonfinite_mismatch = rd.integer(e, p, "nonfinite_mismatch");
  m.all_zero = rd.boolean(e, p, "all_zero");
  // Reports written before SOL-ExecBench's rules were followed exactly lack these.
  m.sxb.nonfinite = rd.integer(e, p, "nonfinite", false);
  if (const ojson* x = rd.get(e, p, "solexecbench", false)) {
    const std::string xp = p + ".solexecbench";
    m.sxb.all_zero = rd.boolean(*x, xp, "all_zero");
    m.sxb.rounds = rd.integer(*x, xp, "rounds");
    // The solexecbench object records that tier's rounds and failed rounds: the format holds the
    // failed rounds of this tier only (another row judged by rounds would read back with none).
    std::int64_t& failed = m.failed_rounds[static_cast<int>(Tier::solexecbench)];
    failed = rd.integer(*x, xp, "failed_rounds");
    m.sxb.nan = rd.integer(*x, xp, "nan");
    m.sxb.max_abs = rd.number(*x, xp, "max_abs");
    m.sxb.max_rel = rd.number(*x, xp, "max_rel");
    if (m.sxb.nan < 0 || m.sxb.nan > m.sxb.nonfinite) rd.fail(xp + ".nan", "a count between 0 and nonfinite", std::to_string(m.sxb.nan));
    if (m.sxb.rounds < 0 || failed < 0 || failed > m.sxb.rounds)
      rd.fail(xp + ".failed_rounds", "a count between 0 and rounds", std::to_string(failed));
  }
  if (m.sxb.nonfinite < 0) rd.fail(p + ".nonfinite", "a count >= 0", std::to_string(m.sxb.nonfinite));
  const ojson* tiers = rd.get(e, p, "tiers", true);
  for (Tier t : all_tiers) {
    const std::string tp = p + ".tiers";
    // Reports written before the tiers were renamed key them by the old names.
    std::string key(name(t));
    if (!tiers->contains(key) && !rule(t).old_name.empty() && tiers->contains(std::string(rule(t).old_name)))
      key = rule(t).old_name;
    const ojson* tj = rd.get(*tiers, tp, key.c_str(), true);
    m.over[static_cast<int>(t)] = rd.integer(*tj, tp + "." + key, "over");
  }
  // Reports written before subnormal modes and accepted overflows were recorded lack these.
  const std::string sub = rd.str(e, p, "subnormals", false);
  if (!sub.empty() && sub != "ieee" && sub != "flush_allowed") rd.fail(p + ".subnormals", "\"ieee\" or \"flush_allowed\"", "\"" + sub.substr(0, 40) + "\"");
  m.subnormals = sub == "ieee" ? Subnormals::ieee : Subnormals::flush_allowed;
  auto count = [&](const ojson& v, const std::string& f) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0) rd.fail(f, "a count >= 0", v.type_name());
    return v.get<std::int64_t>();
  };
  if (rd.get(e, p, "subnormal_modes", false)) rd.array(e, p, "subnormal_modes", m.subnormal_modes, count);
  m.subnormal_unexplained = rd.integer(e, p, "subnormal_unexplained", false);
  m.overflow_accepted = rd.integer(e, p, "overflow_accepted", false);
  if (m.subnormal_unexplained < 0 || m.overflow_accepted < 0)
    rd.fail(p + (m.overflow_accepted < 0 ? ".overflow_accepted" : ".subnormal_unexplained"), "a count >= 0", "a negative number");
  if (const ojson* w = rd.get(e, p, "worst", false)) m.worst = rd.element(*w, p + ".worst");
  if (const ojson* w = rd.get(e, p, "greatest_abs", false)) m.greatest_abs = rd.element(*w, p + ".greatest_abs");
  if (const ojson* w = rd.get(e, p, "greatest_rel", false)) m.greatest_rel = rd.element(*w, p + ".greatest_rel");
  if (const ojson* f = rd.get(e, p, "failures", false)) {
    if (!f->is_array()) rd.fail(p + ".failures", "an array", f->type_name());
    for (std::size_t k = 0; k < f->size(); ++k) m.failures.push_back(rd.element((*f)[k], fmt::format("{}.failures[{}]", p, k)));
  }
  if (with_plots) {
    rd.array(e, p, "histogram", m.histogram, [&](const ojson& v, const std::string& f) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0) rd.fail(f, "a count >= 0", v.type_name());
      return v.get<std::int64_t>();
    });
    rd.array(e, p, "max_by_angle", m.max_by_angle, [&](const ojson& v, const std::string& f) { return rd.number(v, f); });
  }
  return m;
}

SetResult read_result(const Reader& rd, const ojson& e, const std::string& p, Tier gate, bool with_plots) {
  SetResult x;
  x.name = rd.str(e, p, "name");
  x.set = rd.str(e, p, "set");
  x.dtype = rd.str(e, p, "grad_dtype");
  x.error = rd.str(e, p, "error", false);
  x.not_supported = rd.str(e, p, "not_supported", false);
  x.integrity = rd.str(e, p, "integrity", false);
  x.reproduce = rd.str(e, p, "reproduce", false);
  x.kernel_ms = rd.number(e, p, "kernel_ms", false);
  if (const ojson* sh = rd.get(e, p, "shape", false)) {
    if (!sh->is_array() || sh->empty() || sh->size() > 3) rd.fail(p + ".shape", "an array of 1 to 3 sizes", sh->is_array() ? fmt::format("{} entries", sh->size()) : sh->type_name());
    for (std::size_t k = 0; k < sh->size(); ++k) {
      const ojson& v = (*sh)[k];
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0) rd.fail(fmt::format("{}.shape[{}]", p, k), "a size >= 0", v.type_name());
      x.shape.push_back(v.get<std::int64_t>());
    }
  }
  x.beyond_definition = e.contains("beyond_definition") && rd.boolean(e, p, "beyond_definition");
  x.metrics = read_metrics(rd, e, p, with_plots);
  // The recorded cause gives the kind of the error or of the findings (reports written before
  // causes were recorded: runtime and integrity, as they were reported then).
  const std::string cause_text = rd.str(e, p, "cause", false);
  const bool has_cause = !cause_text.empty();
  const Cause cause = has_cause ? parse_cause(cause_text, p + ".cause") : Cause::runtime;
  if (has_cause && error_cause(cause)) x.error_cause = cause;
  if (has_cause && finding_cause(cause)) x.finding_cause = cause;
  // The recorded disposition must follow from the recorded numbers under today's tiers.
  const Disposition d = read_disposition(rd, e, p, "disposition");
  if (d != x.disposition(gate))
    rd.fail(p + ".disposition", fmt::format("\"{}\" (from the recorded metrics)", name(x.disposition(gate))), fmt::format("\"{}\"", name(d)));
  // And the cause and its status from the recorded error, findings and metrics.
  if (has_cause) {
    if (x.cause(gate) != cause)
      rd.fail(p + ".cause", fmt::format("\"{}\" (from the recorded error, findings and metrics)", name(x.cause(gate))),
              fmt::format("\"{}\"", name(cause)));
    const std::optional<SxbStatus> st = sxb_status(cause);
    const ojson* s = rd.get(e, p, "status", true);
    const std::string want = st ? "\"" + std::string(name(*st)) + "\"" : std::string("null");
    if (st ? !(s->is_string() && s->get<std::string>() == name(*st)) : !s->is_null())
      rd.fail(p + ".status", want + " (from the cause)", s->is_string() ? "\"" + s->get<std::string>().substr(0, 40) + "\"" : s->type_name());
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
  const Reader rd{path};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot be read");
  ojson j;
  try {
    j = ojson::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not JSON (byte {})", path, e.byte));
  }
  Report r;
  r.title = rd.str(j, "", "title");
  r.timestamp = rd.str(j, "", "timestamp", false);  // reports written before it was recorded: empty
  const std::string gate = rd.str(j, "", "gate");
  std::string deprecated;  // reports written before the tiers were renamed: read silently
  const auto tier = parse_tier(gate, &deprecated);
  if (!tier) rd.fail("gate", "a tier name", "\"" + gate.substr(0, 40) + "\"");
  r.gate = *tier;
  if (const ojson* h = rd.get(j, "", "header", false)) {
    if (!h->is_object()) rd.fail("header", "an object", h->type_name());
    for (const auto& [k, v] : h->items()) r.header.push_back({k, rd.str(*h, "header", k.c_str())});
  }
  if (const ojson* w = rd.get(j, "", "warnings", false)) {
    if (!w->is_array()) rd.fail("warnings", "an array", w->type_name());
    for (std::size_t k = 0; k < w->size(); ++k) {
      if (!(*w)[k].is_string()) rd.fail(fmt::format("warnings[{}]", k), "a string", (*w)[k].type_name());
      r.warnings.push_back((*w)[k].get<std::string>());
    }
  }
  const ojson* res = rd.get(j, "", "results", false);
  if (res && !res->is_array()) rd.fail("results", "an array", res->type_name());
  if (res) {
    // Reports written before the histograms were recorded can be read, but not plotted.
    r.has_plot_data = !res->empty() && (*res)[0].is_object() && (*res)[0].contains("histogram");
    r.has_subnormal_data = j.contains("subnormal_mode");
    for (std::size_t k = 0; k < res->size(); ++k)
      r.results.push_back(read_result(rd, (*res)[k], fmt::format("results[{}]", k), r.gate, r.has_plot_data));
  }
  const Disposition verdict = read_disposition(rd, j, "", "verdict");
  if (verdict != r.verdict()) rd.fail("verdict", fmt::format("\"{}\" (from the results)", name(r.verdict())), fmt::format("\"{}\"", name(verdict)));
  return r;
}

}  // namespace rope2d::verify
