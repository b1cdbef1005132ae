// The night's result types to and from JSON (nightly_summary.hpp): the keys of summary.json and
// of a shard's results, one place. nlohmann::json's objects keep their keys sorted, so the text
// written does not depend on the order below.
#include "products/nightly/nightly_summary.hpp"

#include <bit>
#include <stdexcept>

#include "codec/names.hpp"
#include "rope2d/verify/judge/suites.hpp"

namespace rope2d::verify {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(); }
std::optional<double> number_or_none(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

// Missing (an older summary): failed, which no rule compares as passing.
Disposition disposition_at(const json& j, const char* key, const std::string& at) {
  return j.contains(key) ? parse_disposition(j[key].get<std::string>(), at + "." + key) : Disposition::failed;
}

json to_json(const NightSet& s) {
  return {{"disposition", name(s.disposition)}, {"max", optional_number(s.max)}, {"elements", s.elements}};
}

json to_json(const std::optional<NightSweepWorst>& w) {
  if (!w) return json();
  return {{"angle", w->angle}, {"angle_bits", w->angle_bits}, {"grad", w->grad}, {"gc", w->gc}, {"gs", w->gs},
          {"ref", w->ref},     {"got", w->got},               {"scaled_error", w->scaled_error}};
}

std::optional<NightSweepWorst> worst_from_json(const json& j) {
  if (!j.is_object()) return std::nullopt;
  return NightSweepWorst{j.value("angle", 0.0), j.value("angle_bits", std::uint32_t{0}), j.value("grad", 0),
                         j.value("gc", 0.0),    j.value("gs", 0.0),                   j.value("ref", 0.0),
                         j.value("got", 0.0),   j.value("scaled_error", 0.0)};
}

}  // namespace

std::string dtype_label(const NightVerify& v, std::string_view none) {
  return std::string(v.grad_dtype ? ref::name(*v.grad_dtype) : none);
}

ref::Dtype night_dtype(const json& name, const std::string& field) {
  return parse_grad_dtypes({name.get<std::string>()}, field).front();
}

json to_json(const NightVerify& v) {
  json j = {{"kernel", v.kernel}, {"exit", v.exit}, {"seconds", v.seconds.value_or(0.0)}, {"report", v.report},
            {"verdict", name(v.verdict)}};
  if (v.grad_dtype) j["grad_dtype"] = ref::name(*v.grad_dtype);
  if (v.report) {
    j["sets"] = json::object();
    for (const auto& [set, s] : v.sets) j["sets"][set] = to_json(s);
  }
  return j;
}

NightVerify night_verify_from_json(const json& j, const std::string& at) {
  NightVerify v;
  v.kernel = j.value("kernel", std::string());
  if (j.contains("grad_dtype") && !j["grad_dtype"].is_null()) v.grad_dtype = night_dtype(j["grad_dtype"], at + ".grad_dtype");
  v.exit = j.value("exit", 0);
  if (j.contains("seconds")) v.seconds = j["seconds"].get<double>();
  v.report = j.value("report", false);
  v.verdict = disposition_at(j, "verdict", at);
  const json sets = j.value("sets", json::object());  // named: items() of a temporary would dangle
  for (const auto& [set, s] : sets.items()) {
    v.sets[set] = {disposition_at(s, "disposition", at + ".sets[" + json(set).dump() + "]"), number_or_none(s, "max"),
                   s.value("elements", std::int64_t{0})};
  }
  return v;
}

json to_json(const NightGolden& g) {
  return {{"file", g.file},         {"problem", g.problem},   {"disposition", name(g.disposition)},
          {"integrity", g.integrity}, {"elements", g.elements}, {"max", optional_number(g.max)},
          {"worst", g.worst ? json(*g.worst) : json()}};
}

NightGolden night_golden_from_json(const json& j, const std::string& at) {
  NightGolden g;
  g.file = j.value("file", std::string());
  g.problem = j.value("problem", std::string());
  g.disposition = disposition_at(j, "disposition", at);
  g.integrity = j.value("integrity", std::string());
  g.elements = j.value("elements", std::int64_t{0});
  g.max = number_or_none(j, "max");
  if (j.contains("worst") && j["worst"].is_string()) g.worst = j["worst"].get<std::string>();
  return g;
}

NightSweepRange night_sweep_range(const SweepResult& sw, std::uint64_t lo, std::uint64_t hi, const std::vector<SweepGrads>& grads) {
  NightSweepRange r{lo, hi, sw.ran, sw.skipped, sw.angles, sw.complete, sw.reached, sw.next, sw.seconds};
  r.count = sw.metrics.count;
  r.correctly_rounded = sw.metrics.correctly_rounded;
  r.max_scaled_error = sw.metrics.max_scaled;
  r.over_float32_bound = sw.metrics.over[static_cast<int>(Tier::float32_bound)];
  if (sw.metrics.worst) {
    const ElementReport& w = *sw.metrics.worst;
    int grad = 0;
    for (std::size_t g = 0; g < grads.size(); ++g)
      if (static_cast<float>(grads[g].gc) == static_cast<float>(w.in.gc) && static_cast<float>(grads[g].gs) == static_cast<float>(w.in.gs))
        grad = static_cast<int>(g);
    r.worst = NightSweepWorst{w.in.t, std::bit_cast<std::uint32_t>(w.in.t), grad, w.in.gc, w.in.gs, w.ref, w.got, w.scaled_error};
  }
  return r;
}

json to_json(const NightSweepRange& r) {
  json j = {{"lo", r.lo},
            {"hi", r.hi},
            {"ran", r.ran},
            {"skipped", r.skipped},
            {"angles", r.angles},
            {"complete", r.complete},
            {"reached", r.reached},
            {"seconds", r.seconds},
            {"count", r.count},
            {"correctly_rounded", r.correctly_rounded},
            {"max_scaled_error", r.max_scaled_error},
            {"over_float32_bound", r.over_float32_bound},
            {"worst", to_json(r.worst)}};
  if (r.next) j["next"] = *r.next;
  return j;
}

NightSweepRange night_sweep_range_from_json(const json& j) {
  NightSweepRange r;
  r.lo = j.value("lo", std::uint64_t{0});
  r.hi = j.value("hi", std::uint64_t{0});
  r.ran = j.value("ran", false);
  r.skipped = j.value("skipped", std::string());
  r.angles = j.value("angles", std::int64_t{0});
  r.complete = j.value("complete", false);
  r.reached = j.value("reached", 0.0);
  if (j.contains("next")) r.next = j["next"].get<std::uint64_t>();
  r.seconds = j.value("seconds", 0.0);
  r.count = j.value("count", std::int64_t{0});
  r.correctly_rounded = j.value("correctly_rounded", std::int64_t{0});
  r.max_scaled_error = j.value("max_scaled_error", 0.0);
  r.over_float32_bound = j.value("over_float32_bound", std::int64_t{0});
  r.worst = worst_from_json(j.value("worst", json()));
  return r;
}

json to_json(const NightSweep& s) {
  json grads = json::array(), ranges = json::array();
  for (const SweepGrads& g : s.grads) grads.push_back({g.gc, g.gs, g.name});
  for (const NightSweepRange& r : s.ranges) ranges.push_back(to_json(r));
  return {{"from", s.from},
          {"to", s.to},
          {"lo", s.lo},
          {"hi", s.hi},
          {"grads", grads},
          {"ranges", ranges},
          {"ran", s.ran},
          {"skipped", s.skipped},
          {"complete", s.complete},
          {"reached", s.reached},
          {"angles", s.angles},
          {"seconds", s.seconds},
          {"count", s.count},
          {"max_scaled_error", s.max_scaled_error},
          {"over_strict", s.over_float32_bound},  // the old name, kept for old readers
          {"over_float32_bound", s.over_float32_bound},
          {"correctly_rounded_fraction", s.correctly_rounded_fraction},
          {"worst", to_json(s.worst)}};
}

NightSweep night_sweep_from_json(const json& j) {
  NightSweep s;
  s.from = j.value("from", 0.0);
  s.to = j.value("to", 0.0);
  s.lo = j.value("lo", std::uint64_t{0});
  s.hi = j.value("hi", std::uint64_t{0});
  for (const json& g : j.value("grads", json::array())) s.grads.push_back({g.at(2).get<std::string>(), g.at(0).get<double>(), g.at(1).get<double>()});
  for (const json& r : j.value("ranges", json::array())) s.ranges.push_back(night_sweep_range_from_json(r));
  s.ran = j.value("ran", false);
  s.skipped = j.value("skipped", std::string());
  s.complete = j.value("complete", false);
  s.reached = j.value("reached", 0.0);
  s.angles = j.value("angles", std::int64_t{0});
  s.seconds = j.value("seconds", 0.0);
  s.count = j.value("count", std::int64_t{0});
  s.max_scaled_error = j.value("max_scaled_error", 0.0);
  s.over_float32_bound = j.value("over_float32_bound", j.value("over_strict", std::int64_t{0}));
  s.correctly_rounded_fraction = j.value("correctly_rounded_fraction", 0.0);
  s.worst = worst_from_json(j.value("worst", json()));
  return s;
}

json to_json(const NightPremise& p) {
  json functions = json::array();
  for (const NightPremiseFigures& f : p.functions)
    functions.push_back({{"function", f.function},
                         {"max_floats_from_correctly_rounded", f.floats},
                         {"max_ulp_from_exact", f.ulp},
                         {"mpfr_recheck_ulp", f.mpfr_ulp},
                         {"at_x", f.at_x},
                         {"outside_unit_interval", f.outside}});
  return {{"disposition", name(p.disposition)},
          {"reason", p.reason},
          {"program", p.program},
          {"file", p.file},
          {"given", p.given},
          {"k_ulp", p.k_ulp},
          {"seconds", p.seconds},
          {"device", p.device},
          {"cuda_runtime", p.cuda_runtime},
          {"cuda_driver", p.cuda_driver},
          {"date", p.date},
          {"functions", functions},
          {"exceeded", p.exceeded}};
}

NightPremise night_premise_from_json(const json& j, const std::string& at) {
  NightPremise p;
  p.disposition = disposition_at(j, "disposition", at);
  p.reason = j.value("reason", std::string());
  p.program = j.value("program", std::string());
  p.file = j.value("file", std::string());
  p.given = j.value("given", false);
  p.k_ulp = j.value("k_ulp", 0.0);
  p.seconds = j.value("seconds", 0.0);
  p.device = j.value("device", std::string());
  p.cuda_runtime = j.value("cuda_runtime", std::string());
  p.cuda_driver = j.value("cuda_driver", std::string());
  p.date = j.value("date", std::string());
  for (const json& f : j.value("functions", json::array()))
    p.functions.push_back({f.value("function", std::string()), f.value("max_floats_from_correctly_rounded", std::int64_t{0}),
                           f.value("max_ulp_from_exact", 0.0), f.value("mpfr_recheck_ulp", 0.0), f.value("at_x", std::string()),
                           f.value("outside_unit_interval", std::int64_t{0})});
  p.exceeded = j.value("exceeded", std::vector<std::string>());
  return p;
}

json to_json(const NightSummary& s) {
  json verify = json::array(), golden = json::array();
  for (const NightVerify& v : s.verify) verify.push_back(to_json(v));
  for (const NightGolden& g : s.golden.results) golden.push_back(to_json(g));
  json j = {{"date", s.date},
            {"seed", s.seed ? json(*s.seed) : json()},
            {"commit", s.commit},
            {"config_digest", s.config_digest},
            {"shards", s.shards},
            {"gpu", s.gpu},
            {"verify", verify},
            {"golden", {{"dir", s.golden.dir}, {"skipped", s.golden.skipped}, {"results", golden}}},
            {"sweep", to_json(s.sweep)},
            {"problems", s.problems},
            {"regressions", s.regressions},
            {"status", s.status}};
  if (s.premise) j["premise"] = to_json(*s.premise);
  if (s.previous) j["previous"] = *s.previous;
  if (!s.warnings.empty()) j["warnings"] = s.warnings;
  if (s.gpus) j["gpus"] = *s.gpus;
  if (s.wall_seconds) j["wall_seconds"] = *s.wall_seconds;
  return j;
}

NightSummary night_summary_from_json(const json& j) {
  NightSummary s;
  s.date = j.value("date", std::string());
  s.commit = j.value("commit", std::string());
  s.config_digest = j.value("config_digest", std::string());
  if (j.contains("seed") && !j["seed"].is_null()) s.seed = j["seed"].get<std::uint64_t>();
  s.shards = j.value("shards", 1);
  s.gpu = j.value("gpu", false);
  const json verify = j.value("verify", json::array());
  for (std::size_t k = 0; k < verify.size(); ++k) s.verify.push_back(night_verify_from_json(verify[k], "verify[" + std::to_string(k) + "]"));
  const json golden = j.value("golden", json::object());
  s.golden.dir = golden.value("dir", std::string());
  s.golden.skipped = golden.value("skipped", std::string());
  const json results = golden.value("results", json::array());
  for (std::size_t k = 0; k < results.size(); ++k)
    s.golden.results.push_back(night_golden_from_json(results[k], "golden.results[" + std::to_string(k) + "]"));
  s.sweep = night_sweep_from_json(j.value("sweep", json::object()));
  if (j.contains("premise")) s.premise = night_premise_from_json(j["premise"]);
  s.problems = j.value("problems", std::vector<std::string>());
  s.regressions = j.value("regressions", std::vector<std::string>());
  s.warnings = j.value("warnings", std::vector<std::string>());
  s.status = j.value("status", std::string());
  if (j.contains("previous")) s.previous = j["previous"].get<std::string>();
  if (j.contains("gpus")) s.gpus = j["gpus"].get<std::vector<int>>();
  if (j.contains("wall_seconds")) s.wall_seconds = j["wall_seconds"].get<double>();
  return s;
}

}  // namespace rope2d::verify
