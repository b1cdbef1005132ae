// trace.jsonl: SOL-ExecBench's Trace JSON lines (src/sol_execbench/core/data/trace.py), one per
// set with a status, so the official tooling reads rope2d's verdicts. The status is the set's
// cause under the gate, through status.hpp's one table; correctness (for PASSED and
// INCORRECT_NUMERICAL only, as the model demands) holds SOL-ExecBench's own error metrics
// (float32 |out - ref| and its relative form, has_nan / has_inf) and, in extra, rope2d's.
#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>

#include "rope2d/verify/codec/golden.hpp"
#include "rope2d/verify/products/report_files.hpp"

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

// The log of a line that did not pass: why, in rope2d's words (the error, the findings, or the
// elements over the gate), and the command that reruns the set.
std::string log_of(const SetResult& x, Cause c, Tier gate) {
  if (c == Cause::passed) return "";
  std::string s = !x.ran() ? x.error
                : !x.integrity.empty() && x.integrity != "ok"
                    ? x.integrity
                    : fmt::format("{} of {} elements over {}", x.metrics.over[static_cast<int>(gate)], x.metrics.count, name(gate));
  if (!x.reproduce.empty()) s += (s.empty() ? "" : "\n") + std::string("reproduce: ") + x.reproduce;
  return s;
}

ojson evaluation(const Report& r, const SetResult& x, Cause c, SxbStatus st) {
  ojson e = {{"status", name(st)},
             {"environment", {{"hardware", hardware(r)}, {"libs", {{"rope2d", generator_version()}}}}},
             {"timestamp", r.timestamp.empty() ? std::string("unknown") : r.timestamp},
             {"log", log_of(x, c, r.gate)}};
  // Correctness only with PASSED and INCORRECT_NUMERICAL, performance only with PASSED: the
  // model refuses them with any other status.
  if (st != SxbStatus::passed && st != SxbStatus::incorrect_numerical) return e;
  e["correctness"] = correctness(x, r.gate);
  if (st == SxbStatus::passed) {
    const double ms = x.kernel_ms > 0 ? x.kernel_ms : 0.0;  // not timed: 0
    e["performance"] = {{"latency_ms", ms}, {"reference_latency_ms", 0.0}, {"speedup_factor", 0.0}};
  }
  return e;
}

}  // namespace

std::string render_trace(const Report& r) {
  // The submission, else the outputs file judged (rope2d check), else the report's title.
  std::string solution = header_value(r, "submission");
  if (solution.empty()) solution = header_value(r, "outputs");
  if (solution.empty()) solution = r.title.empty() ? std::string("rope2d") : r.title;
  std::string out;
  for (const SetResult& x : r.results) {
    const Cause c = x.cause(r.gate);
    const std::optional<SxbStatus> st = sxb_status(c);
    if (!st) continue;  // "not supported" has no status in the model
    const ojson line = {{"definition", definition_name}, {"workload", workload(x)}, {"solution", solution},
                        {"evaluation", evaluation(r, x, c, *st)}};
    out += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace rope2d::verify
