// rope2d_verify (capi.h): the verifier's problem sets judged through the one pipeline
// `rope2d verify` runs, verify(plan, harness, observer) (products/verify/verify.hpp), with the
// caller's function as its harness (harness/caller_harness.cpp). Each call hands the function
// a round's host inputs and takes back its output, or why there is none, with the caller's
// integrity findings; the sets, seeds, rounds and report are verify()'s. No CUDA: the added C
// ABI checks are not run (plan.checks is null).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <limits>

#include "codec/input.hpp"
#include "codec/names.hpp"
#include "products/capi/common.hpp"
#include "products/verify/verify.hpp"
#include "rope2d/verify/products/capi.h"
#include "rope2d/verify/products/report_files.hpp"

using namespace rope2d;
using namespace rope2d::verify;
using namespace rope2d::verify::capi;
using nlohmann::json;

// What the caller said of one call while its function ran.
struct rope2d_call_state {
  std::string error;
  Cause cause = Cause::runtime;
  std::vector<std::string> findings;
};

namespace {

// The caller's JSON text through the one reader's parser (bounded depth, each key once).
json parse(const char* text, const char* what) { return parse_json(text ? text : "", what); }

// A whole number option in [lo, hi] (as `rope2d verify` takes it), or its default.
std::int64_t whole(const json& o, const char* key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
  if (!o.contains(key)) return fallback;
  const json& v = o.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi ||
      (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)))
    throw std::invalid_argument(fmt::format("{}: expected a whole number from {} to {}, found {}", key, lo, hi, v.dump().substr(0, 60)));
  return v.get<std::int64_t>();
}

// The named suite's sets for the run's seed and worst lists, as the options narrow them.
std::vector<ProblemSpec> suite_of(const json& o, const RunOptions& run) {
  SuiteOptions so;
  so.seed = run.seed;
  so.quick = o.value("quick", true);
  so.grad_dtypes = parse_grad_dtypes(o.value("grad_dtypes", std::vector<std::string>{"bf16"}), "grad_dtypes");
  so.worst_dir = run.worst_dir;  // the worst set (one per dtype) joins the verification suite where given
  const std::string suite = o.value("suite", "verification");
  std::vector<ProblemSpec> specs = suite_named(suite, "suite").make(so);
  const std::string only = o.value("only", "");
  if (!only.empty()) {
    std::erase_if(specs, [&](const ProblemSpec& s) { return s.name() != only; });
    if (specs.empty()) throw std::invalid_argument("only: no problem named '" + only + "' in the suite");
  }
  return specs;
}

// The options' sets, gate, seed, rounds and subnormal rule, and each set's reproduce line.
Plan plan_of(const char* options, const char* out_dir) {
  const json o = parse(options, "options");
  if (!o.is_object()) throw std::invalid_argument("options: expected a JSON object");
  Plan plan;
  try {
    plan.run.tier = tier_arg(o.value("tier", "float32-bound").c_str());
    plan.run.seed = static_cast<std::uint64_t>(whole(o, "seed", 1, 0, std::int64_t{1} << 48));  // as `rope2d verify --seed`
    plan.run.ieee_subnormals = o.value("ieee_subnormals", false);
    plan.run.rounds = static_cast<int>(whole(o, "rounds", 2, 1, 100));
    plan.run.worst_dir = o.value("worst_dir", "");
    if (!plan.run.worst_dir.empty() && !std::filesystem::is_directory(plan.run.worst_dir))
      throw std::invalid_argument("worst_dir: expected the folder of the worst-case lists, found no folder '" + plan.run.worst_dir + "'");
    plan.specs = suite_of(o, plan.run);
    const std::string prefix = o.value("reproduce_prefix", "");
    plan.reproduce = [prefix](const std::string& set) { return prefix.empty() ? "" : prefix + "only='" + set + "')"; };
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("options: ") + e.what());
  }
  plan.device_inputs = false;  // host inputs: the caller's function reads them
  plan.contract = false;
  plan.out_dir = out_dir;
  return plan;
}

// The report's title, header and warnings as the caller words them.
harness::Caller caller_of(const char* title, const char* header, const char* warnings) {
  harness::Caller c;
  c.title = title ? title : "rope2d verify";
  const json h = parse(header && *header ? header : "[]", "header");
  const json w = parse(warnings && *warnings ? warnings : "[]", "warnings");
  try {
    for (const auto& kv : h) c.header.push_back({kv.at(0).get<std::string>(), kv.at(1).get<std::string>()});
    for (const auto& x : w) c.warnings.push_back(x.get<std::string>());
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("header/warnings: expected [[key, value], ...] and [text, ...]: ") + e.what());
  }
  return c;
}

// The set being judged, as verify() announces it: each call's index and count.
struct Progress final : Observer {
  std::size_t index = 0, count = 0;
  void start(const std::string&, std::size_t k, std::size_t n) override { index = k, count = n; }
};

// One call of the caller's function on p's host inputs: its output, or why there is none.
CallResult call_once(rope2d_call_fn fn, void* user, const Progress& at, const Problem& p, int round) {
  const std::string name = p.spec.name();
  const std::vector<std::int64_t> shape = p.spec.shape();
  const std::array<std::int64_t, 4> offsets{p.spec.offset[0], p.spec.offset[1], p.spec.offset[2], p.spec.offset[3]};
  std::vector<float> out(static_cast<std::size_t>(p.n()), std::numeric_limits<float>::quiet_NaN());
  rope2d_call_state state;
  const rope2d_call call{.name = name.c_str(), .index = static_cast<std::int64_t>(at.index),
                         .count = static_cast<std::int64_t>(at.count), .round = round,
                         .grad_dtype = static_cast<int>(ref::abi_code(p.spec.grad_dtype)), .shape = shape.data(),
                         .rank = static_cast<int>(shape.size()), .n = p.n(), .offsets = offsets.data(), .gc = p.gc.data(),
                         .gs = p.gs.data(), .theta = p.theta.data(), .out = out.data(), .state = &state};
  const int rc = fn(user, &call);
  if (rc == ROPE2D_CALL_STOP)
    throw std::runtime_error("stopped by the caller in " + name + (state.error.empty() ? "" : ": " + state.error));
  CallResult r;
  r.findings = std::move(state.findings);
  if (rc == ROPE2D_CALL_OK && state.error.empty()) {
    r.out = std::move(out);
  } else {
    r.error = state.error.empty() ? fmt::format("the call failed (its function returned {})", rc) : state.error;
    r.error_cause = state.cause;
  }
  return r;
}

const rope2d_call& during_call(const rope2d_call* call, const char* what) {
  if (!call || !call->state) throw std::invalid_argument(std::string(what) + ": expected the call being made, found none");
  return *call;
}

}  // namespace

extern "C" {

int rope2d_call_fail(const rope2d_call* call, const char* cause, const char* error) {
  return guarded([&] {
    rope2d_call_state& s = *during_call(call, "fail").state;
    if (!error || !*error) throw std::invalid_argument("fail: error: expected why the call failed, found nothing");
    const Cause c = parse_cause(cause ? cause : "", "fail: cause");
    // Only what a caller can tell of its own call; the others come from the judge.
    if (c != Cause::runtime && c != Cause::timeout && c != Cause::shape && c != Cause::dtype)
      throw std::invalid_argument("fail: cause: expected runtime, timeout, shape or dtype, found '" + std::string(name(c)) + "'");
    if (!s.error.empty()) return;  // the call's first failure is its result
    s.error = error;
    s.cause = c;
  });
}

int rope2d_call_finding(const rope2d_call* call, const char* finding) {
  return guarded([&] {
    rope2d_call_state& s = *during_call(call, "finding").state;
    if (finding && *finding) s.findings.emplace_back(finding);
  });
}

int rope2d_verify(const char* options, rope2d_call_fn call, void* user, const char* out_dir, const char* title,
                  const char* header, const char* warnings, char** summary_text, int* exit_code) {
  return guarded([&] {
    if (!call || !out_dir || !summary_text || !exit_code) throw std::invalid_argument("null pointer");
    if (!*out_dir) throw std::invalid_argument("out_dir: expected the report's folder, found nothing");
    const Plan plan = plan_of(options, out_dir);
    Progress progress;
    harness::Caller c = caller_of(title, header, warnings);
    c.call = [&](const Problem& p, int round) { return call_once(call, user, progress, p, round); };
    const std::unique_ptr<harness::Harness> h = harness::caller_harness(std::move(c));
    const Report rep = rope2d::verify::verify(plan, *h, progress);
    *summary_text = dup(summary(rep));
    *exit_code = rep.exit_code();
  });
}

}  // extern "C"
