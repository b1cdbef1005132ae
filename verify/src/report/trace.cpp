// trace.jsonl: SOL-ExecBench's Trace JSON lines (src/sol_execbench/core/data/trace.py), one per
// set that ran, so the official tooling reads rope2d's verdicts. The status is rope2d's gate
// verdict; correctness holds SOL-ExecBench's own error metrics (float32 |out - ref| and its
// relative form, has_nan / has_inf) and, in extra, rope2d's.
#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <nlohmann/json.hpp>

#include "rope2d/verify/golden.hpp"
#include "rope2d/verify/report.hpp"

namespace rope2d::verify {

namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* definition_name = "090_batched_2d_rope_position_encoding_backward";

// JSON has no infinity: the largest double stands for it (the extra says which it was).
double finite(double v) { return std::isfinite(v) ? v : DBL_MAX; }

std::string header_value(const Report& r, const std::string& key) {
  for (const auto& [k, v] : r.header)
    if (k == key) return v;
  return "";
}

// "NVIDIA H200 (132 SMs, 139 GiB)" -> "NVIDIA_H200"; no GPU line: the host CPU judged stored outputs.
std::string hardware(const Report& r) {
  std::string g = header_value(r, "gpu");
  g = g.substr(0, g.find(" ("));
  for (char& c : g)
    if (c == ' ') c = '_';
  return g.empty() ? "CPU" : g;
}

ojson workload(const SetResult& x) {
  ojson axes = ojson::object();
  if (x.shape.size() == 3) axes = {{"batch_size", x.shape[0]}, {"seq_len", x.shape[1]}};
  else if (x.shape.size() == 1) axes = {{"elements", x.shape[0]}};  // a flat problem: no shape of the definition
  const ojson in = {{"type", "random"}};
  const Tier t = Tier::solexecbench;
  return {{"axes", axes},
          {"inputs", {{"grad_cos", in}, {"grad_sin", in}, {"idx_theta", in}}},
          {"uuid", x.name.empty() ? std::string("unnamed") : x.name},
          {"tolerance", {{"max_atol", rule(t).atol}, {"max_rtol", rule(t).ref_coeff}, {"required_matched_ratio", rule(t).ratio},
                         {"max_error_cap", nullptr}, {"allow_negative_inf", false}}}};
}

ojson correctness(const SetResult& x, Tier gate) {
  const Metrics& m = x.metrics;
  const bool nonfinite = m.sxb.nonfinite > 0;
  ojson c = {{"max_relative_error", nonfinite ? 0.0 : finite(m.sxb.max_rel)},
             {"max_absolute_error", nonfinite ? 0.0 : finite(m.sxb.max_abs)},
             {"has_nan", nonfinite && m.sxb.nan > 0},
             {"has_inf", nonfinite && m.sxb.nan == 0}};
  ojson tiers = ojson::object();
  for (Tier t : all_tiers) tiers[std::string(name(t))] = m.passes(t) ? "pass" : "fail";
  c["extra"] = {{"rope2d_gate", name(gate)},
                {"rope2d_tiers", tiers},
                {"elements", m.count},
                {"max_scaled_error", finite(m.max_scaled)},
                {"max_abs_error_infinite", !std::isfinite(m.sxb.max_abs)},
                {"over_solexecbench", m.over[static_cast<int>(Tier::solexecbench)]},
                {"rounds", m.sxb.rounds},
                {"failed_rounds", m.failed_rounds[static_cast<int>(Tier::solexecbench)]},
                {"all_zero", m.sxb.all_zero},
                {"integrity", x.integrity.empty() ? "ok" : x.integrity}};
  if (!x.reproduce.empty()) c["extra"]["reproduce"] = x.reproduce;
  const std::string why = m.sxb_disagreement(gate);
  if (!why.empty()) c["extra"]["solexecbench_differs"] = why;
  return c;
}

ojson evaluation(const Report& r, const SetResult& x) {
  const Disposition d = x.disposition(r.gate);
  ojson e = {{"status", d == Disposition::passed ? "PASSED" : d == Disposition::incorrect ? "INCORRECT_NUMERICAL" : "RUNTIME_ERROR"},
             {"environment", {{"hardware", hardware(r)}, {"libs", {{"rope2d", generator_version()}}}}},
             {"timestamp", r.timestamp.empty() ? std::string("unknown") : r.timestamp},
             {"log", d == Disposition::failed ? x.error : x.integrity != "ok" && !x.integrity.empty() ? x.integrity : ""}};
  if (d == Disposition::failed) return e;  // neither correctness nor performance, as the model demands
  e["correctness"] = correctness(x, r.gate);
  if (d == Disposition::passed) {
    const double ms = x.kernel_ms > 0 ? x.kernel_ms : 0.0;  // not timed: 0
    e["performance"] = {{"latency_ms", ms}, {"reference_latency_ms", 0.0}, {"speedup_factor", 0.0}};
  }
  return e;
}

}  // namespace

std::string render_trace(const Report& r) {
  const std::string title = header_value(r, "submission");
  const std::string solution = title.empty() ? (r.title.empty() ? std::string("rope2d") : r.title) : title;
  std::string out;
  for (const SetResult& x : r.results) {
    if (!x.supported()) continue;  // "not supported" has no status in the model
    const ojson line = {{"definition", definition_name}, {"workload", workload(x)}, {"solution", solution}, {"evaluation", evaluation(r, x)}};
    out += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace rope2d::verify
