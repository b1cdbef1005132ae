// The judging pipeline (judge.hpp): rounds of cases, each entry's call, integrity findings
// kept once each across rounds, metrics merged.
#include "rope2d/verify/judge.hpp"

#include <fmt/format.h>

#include "rope2d/verify/worst.hpp"

namespace rope2d::verify {

namespace {

constexpr std::size_t max_failures = 10;

struct Pending {
  SetResult result;
  std::string integrity;
  bool ran = false;  // the entry applied to some round's problem
};

void add_finding(std::string& integ, const std::string& what) {
  if (integ.find(what) == std::string::npos) integ += (integ.empty() ? "" : "; ") + what;
}

}  // namespace

std::vector<SetResult> Judge::judge(const ProblemSpec& spec, const std::vector<Entry>& entries) {
  return judge(spec, [&](int r) {
    Case c{phases.time(phases.inputs, [&] { return suite_problem(spec.round(r), worst_dir); }), {}};  // fresh inputs
    c.expected = phases.time(phases.reference, [&] { return compute_expected(c.problem); });
    return c;
  }, entries);
}

std::vector<SetResult> Judge::judge(const ProblemSpec& spec, const CaseSource& cases, const std::vector<Entry>& entries) {
  std::vector<Pending> sets(entries.size());
  for (std::size_t e = 0; e < entries.size(); ++e)
    sets[e].result = SetResult{entries[e].prefix + spec.name(), spec.set, std::string(ref::name(spec.grad_dtype))};
  for (int round = 0; round < rounds_ && !lost_; ++round) {
    if (stop_set_on_error && !sets[0].result.error.empty()) break;
    const Case c = cases(round);
    for (std::size_t e = 0; e < entries.size() && !lost_; ++e) {
      const Entry& entry = entries[e];
      SetResult& r = sets[e].result;
      if (entry.applies && !entry.applies(c.problem)) continue;
      if (stop_set_on_error && !r.error.empty()) continue;
      sets[e].ran = true;
      if (on_call) on_call(r.name);
      const CallResult run = phases.time(phases.gpu, [&] { return entry.call(c.problem, round); });
      if (on_called) on_called();
      if (run.declined) {
        mark_declined(r, spec.grad_dtype);
        continue;
      }
      if (run.context_lost || !run.error.empty()) {
        r.error = run.error;
        lost_ = run.context_lost;
        continue;
      }
      // Keep every distinct finding across rounds (later rounds skip some checks).
      for (const std::string& f : run.findings) add_finding(sets[e].integrity, f);
      r.metrics.merge(phases.time(phases.compare, [&] { return compare(c.problem, c.expected, run.out.data(), gate_, max_failures, subnormals); }),
                      max_failures);
      r.kernel_ms = std::max(r.kernel_ms, run.kernel_ms);
    }
  }
  std::vector<SetResult> out;
  bool any_error = false;
  for (const Pending& s : sets) any_error |= s.ran && !s.result.error.empty();
  for (std::size_t e = 0; e < sets.size(); ++e) {
    SetResult r = sets[e].result;
    if (e > 0 && !sets[e].ran) continue;  // an entry that applied to no round (fused on flat problems)
    if (e == 0 && lost_ && !any_error) r.error = "not run: an earlier call broke the CUDA context";
    r.integrity = sets[e].integrity.empty() ? "ok" : sets[e].integrity;
    if (reproduce) r.reproduce = reproduce_line(*reproduce, r.name);
    out.push_back(std::move(r));
  }
  return out;
}

void mark_declined(SetResult& r, ref::Dtype d) {
  if (d == ref::Dtype::bf16) {
    r.error = "declined grad dtype bf16 (ROPE2D_ERR_UNSUPPORTED_DTYPE): the benchmark's dtype must be supported";
    return;
  }
  r.error.clear();
  r.not_supported = "declined grad dtype " + std::string(ref::name(d)) + " (ROPE2D_ERR_UNSUPPORTED_DTYPE)";
  r.integrity = "ok";
}

std::string outcome(const SetResult& r, Tier gate) {
  if (!r.supported()) return r.not_supported;
  if (!r.ran()) return r.error;
  if (r.integrity != "ok") return r.integrity;
  return fmt::format("max {:.3g} x 2^-24 S, {} over {}", r.metrics.max_scaled, r.metrics.over[static_cast<int>(gate)], name(gate));
}

}  // namespace rope2d::verify
