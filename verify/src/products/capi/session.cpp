// The C ABI's verification session: the verifier's problem sets made here, the caller runs the
// kernel on each round's inputs and hands the output back, each set's rounds merged by the
// judge's SetTally and written by the same report writer `rope2d verify` uses. Not through
// Judge's loop: the caller, not the session, makes the calls.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

#include "codec/names.hpp"
#include "products/capi/common.hpp"
#include "rope2d/verify/products/capi.h"
#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;
using namespace rope2d::verify::capi;
using nlohmann::json;

struct rope2d_session {
  std::vector<ProblemSpec> specs;
  std::vector<SetTally> sets;  // one per spec, merged over rounds
  Tier gate = Tier::float32_bound;
  std::uint64_t seed = 1;
  int rounds = 2;
  Subnormals subnormals = Subnormals::flush_allowed;
  std::string worst_dir;  // the worst-case lists, where the caller gave them
  std::optional<Problem> current;
  std::int64_t current_k = -1;
};

namespace {

std::vector<ProblemSpec> suite_of(const json& o) {
  SuiteOptions so;
  so.seed = o.value("seed", 1ull);
  so.quick = o.value("quick", true);
  so.grad_dtypes = parse_grad_dtypes(o.value("grad_dtypes", std::vector<std::string>{"bf16"}), "grad_dtypes");
  // The worst set (one per dtype) joins the verification suite where the lists' folder is given.
  so.worst_dir = o.value("worst_dir", "");
  if (!so.worst_dir.empty() && !std::filesystem::is_directory(so.worst_dir))
    throw std::invalid_argument("worst_dir: expected the folder of the worst-case lists, found no folder '" + so.worst_dir + "'");
  const std::string suite = o.value("suite", "verification");
  std::vector<ProblemSpec> specs = suite_named(suite, "suite").make(so);
  const std::string only = o.value("only", "");
  if (!only.empty()) {
    std::erase_if(specs, [&](const ProblemSpec& s) { return s.name() != only; });
    if (specs.empty()) throw std::invalid_argument("only: no problem named '" + only + "' in the suite");
  }
  return specs;
}

json parse(const char* text, const char* what) {
  const json j = json::parse(text ? text : "", nullptr, false);
  if (j.is_discarded()) throw std::invalid_argument(std::string(what) + ": not valid JSON");
  return j;
}

}  // namespace

extern "C" {

int rope2d_session_open(const char* options, rope2d_session** out) {
  return guarded([&] {
    if (!out) throw std::invalid_argument("out: null pointer");
    const json o = parse(options, "options");
    if (!o.is_object()) throw std::invalid_argument("options: expected a JSON object");
    auto s = std::make_unique<rope2d_session>();
    try {
      s->gate = tier_arg(o.value("tier", "float32-bound").c_str());
      s->seed = o.value("seed", 1ull);
      if (o.value("ieee_subnormals", false)) s->subnormals = Subnormals::ieee;
      s->rounds = o.value("rounds", 2);
      if (s->rounds < 1 || s->rounds > 100) throw std::invalid_argument("rounds: expected 1 to 100, found " + std::to_string(s->rounds));
      s->specs = suite_of(o);
      s->worst_dir = o.value("worst_dir", "");
    } catch (const json::exception& e) {
      throw std::invalid_argument(std::string("options: ") + e.what());
    }
    const std::string prefix = o.value("reproduce_prefix", "");
    for (const ProblemSpec& p : s->specs) {
      SetResult r{p.name(), p.set, p.grad_dtype};
      r.shape = p.shape();  // the trace line's axes
      if (!prefix.empty()) r.reproduce = prefix + "only='" + p.name() + "')";
      s->sets.emplace_back(std::move(r), p.grad_dtype, s->gate, s->subnormals);
    }
    *out = s.release();
  });
}

void rope2d_session_close(rope2d_session* s) { delete s; }

int rope2d_session_problems(rope2d_session* s, char** out) {
  return guarded([&] {
    if (!s || !out) throw std::invalid_argument("null pointer");
    json a = json::array();
    for (const ProblemSpec& p : s->specs)
      a.push_back({{"name", p.name()}, {"set", p.set}, {"dtype", std::string(ref::name(p.grad_dtype))}, {"shape", p.shape()},
                   {"n", p.n()}, {"offsets", p.offset}});
    *out = dup(json{{"problems", a}, {"rounds", s->rounds}, {"gate", std::string(name(s->gate))}}.dump());
  });
}

int rope2d_session_inputs(rope2d_session* s, int64_t k, int round, const void** gc, const void** gs, const float** theta) {
  return guarded([&] {
    if (!s || !gc || !gs || !theta) throw std::invalid_argument("null pointer");
    if (k < 0 || k >= static_cast<int64_t>(s->specs.size()) || round < 0 || round >= s->rounds)
      throw std::invalid_argument(fmt::format("problem {} round {}: out of range ({} problems, {} rounds)", k, round,
                                              s->specs.size(), s->rounds));
    s->current = suite_problem(s->specs[k].round(round), s->worst_dir);  // fresh inputs each round
    s->current_k = k;
    *gc = s->current->gc.data();
    *gs = s->current->gs.data();
    *theta = s->current->theta.data();
  });
}

int rope2d_session_judge(rope2d_session* s, const float* out, const char* integrity, const char* error) {
  return guarded([&] {
    if (!s || !s->current) throw std::invalid_argument("judge: no inputs were made (call rope2d_session_inputs first)");
    SetTally& t = s->sets[s->current_k];
    if (!t.failed() && error && *error) t.fail(error);
    if (t.failed()) return;  // the set's first failed call is its result
    if (!out) throw std::invalid_argument("out: null pointer");
    CallResult call;
    if (integrity && *integrity) call.findings.push_back(integrity);
    t.outcome(call);
    const Problem& p = *s->current;
    t.round(p, compute_expected(p), out);
    s->current.reset();
  });
}

int rope2d_session_fail(rope2d_session* s, const char* cause, const char* error) {
  return guarded([&] {
    if (!s || !s->current) throw std::invalid_argument("fail: no inputs were made (call rope2d_session_inputs first)");
    if (!error || !*error) throw std::invalid_argument("fail: error: expected why the call failed, found nothing");
    const Cause c = parse_cause(cause ? cause : "", "fail: cause");
    // Only what a caller can tell of its own call; the others come from the judge.
    if (c != Cause::runtime && c != Cause::timeout && c != Cause::shape && c != Cause::dtype)
      throw std::invalid_argument("fail: cause: expected runtime, timeout, shape or dtype, found '" + std::string(name(c)) + "'");
    SetTally& t = s->sets[s->current_k];
    if (!t.failed()) t.fail(error, c);  // the set's first failed call is its result
    s->current.reset();
  });
}

int rope2d_session_finish(rope2d_session* s, const char* out_dir, const char* title, const char* header, const char* warnings,
                          char** summary_text, int* exit_code) {
  return guarded([&] {
    if (!s || !out_dir || !summary_text || !exit_code) throw std::invalid_argument("null pointer");
    Report rep;
    rep.gate = s->gate;
    rep.title = title ? title : "rope2d verify";
    const json h = parse(header && *header ? header : "[]", "header");
    const json w = parse(warnings && *warnings ? warnings : "[]", "warnings");
    try {
      for (const auto& kv : h) rep.header.push_back({kv.at(0).get<std::string>(), kv.at(1).get<std::string>()});
      for (const auto& x : w) rep.warnings.push_back(x.get<std::string>());
    } catch (const json::exception& e) {
      throw std::invalid_argument(std::string("header/warnings: expected [[key, value], ...] and [text, ...]: ") + e.what());
    }
    rep.header.push_back({"reference", "correctly rounded float32: certified double enclosure, MPFR (Ziv) fallback"});
    rep.header.push_back({"seeds", fmt::format("base {}, {} rounds of fresh inputs per set", s->seed, s->rounds)});
    for (std::size_t k = 0; k < s->sets.size(); ++k) {
      SetResult r = s->sets[k].finish();
      if (r.error.empty() && r.metrics.count == 0 && s->specs[k].n() > 0) r.fail("not run");
      rep.results.push_back(std::move(r));
    }
    write_report(out_dir, rep);
    *summary_text = dup(summary(rep));
    *exit_code = rep.exit_code();
  });
}

}  // extern "C"
