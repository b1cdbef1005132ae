// The judging pipeline (judge.hpp): rounds of cases, each entry's call, integrity findings
// kept once each across rounds, metrics merged.
#include "rope2d/verify/judge/judge.hpp"

#include <fmt/format.h>

#include <exception>
#include <optional>
#include <stdexcept>

#include "codec/layout_json.hpp"

namespace rope2d::verify {

namespace {

struct Pending {
  SetTally tally;
  bool ran = false;  // the entry applied to some round's problem
};

// Two given layouts are the same where their JSON is (every field the file has).
bool same_layout(const std::optional<ref::Layout>& a, const std::optional<ref::Layout>& b) {
  return a.has_value() == b.has_value() && (!a || layout_to_json(*a) == layout_to_json(*b));
}

bool same_problem(const ProblemSpec& a, const ProblemSpec& b) {
  return a.name() == b.name() && a.seed == b.seed && a.source == b.source && a.regime == b.regime &&
         a.flush_end == b.flush_end && a.light == b.light && same_layout(a.layout, b.layout);
}

}  // namespace

Judge::Made Judge::make_case(const ProblemSpec& s, Case c, bool device_inputs) {
  Made m{std::move(c)};
  Phases t;
  t.time(t.inputs, [&] { return make_problem(s, m.c.problem, !device_inputs), 0; });
  if (m.c.problem.device_only) {  // made and judged on the GPU by the entries
    m.c.expected = {};
  } else {
    t.time(t.reference, [&] { return compute_expected(m.c.problem, m.c.expected), 0; });
  }
  m.inputs = t.inputs;
  m.reference = t.reference;
  return m;
}

Judge::~Judge() {
  if (ahead_.valid()) ahead_.wait();
}

Case Judge::spare() {
  if (pool_.empty()) return {};
  Case c = std::move(pool_.back());
  pool_.pop_back();
  return c;
}

void Judge::recycle(Case c) {
  if (pool_.size() < 2) pool_.push_back(std::move(c));
}

void Judge::make_ahead(const ProblemSpec& s) {
  ahead_spec_ = s;
  ahead_ = std::async(std::launch::async, [s, c = spare(), dev = device_inputs]() mutable {
    return make_case(s, std::move(c), dev);
  });
}

Case Judge::take_case(const ProblemSpec& s) {
  if (ahead_.valid()) {
    const bool wanted = same_problem(ahead_spec_, s);
    Made m;
    try {
      m = ahead_.get();
    } catch (...) {
      if (wanted) throw;  // the error this round's inputs give, as if made now
      m = {};
    }
    phases.inputs += m.inputs;
    phases.reference += m.reference;
    if (wanted) return std::move(m.c);
    recycle(std::move(m.c));
  }
  Made m = make_case(s, spare(), device_inputs);
  phases.inputs += m.inputs;
  phases.reference += m.reference;
  return std::move(m.c);
}

std::vector<SetResult> Judge::judge(const ProblemSpec& spec, const std::vector<Entry>& entries) {
  // A next set with cases of its own is not made ahead: make_problem does not make it.
  const ProblemSpec* after = next && !own_cases(*next) ? next : nullptr;
  next = nullptr;
  if (const CaseSource own = own_cases(spec))
    return judge(spec, [&](int r) { return phases.time(phases.inputs, [&] { return own(r); }); }, entries);
  return judge(spec, [&, after](int r) {
    Case c = take_case(spec.round(r));  // fresh inputs in reused buffers
    // The next round's (or the next set's first) case is made while this one is judged.
    if (r + 1 < rounds_) make_ahead(spec.round(r + 1));
    else if (after) make_ahead(after->round(0));
    return c;
  }, entries);
}

std::vector<SetResult> Judge::judge(const ProblemSpec& spec, const CaseSource& cases, const std::vector<Entry>& entries) {
  std::vector<Pending> sets;
  for (const Entry& entry : entries) {
    SetResult start{entry.prefix + spec.name(), spec.set, spec.grad_dtype};
    start.shape = spec.shape();
    sets.push_back({SetTally(std::move(start), spec.grad_dtype, gate_, subnormals)});
  }
  for (int round = 0; round < rounds_ && !lost_; ++round) {
    if (stop_set_on_error && sets[0].tally.failed()) break;
    Case c = cases(round);
    for (std::size_t e = 0; e < entries.size() && !lost_; ++e) {
      const Entry& entry = entries[e];
      SetTally& t = sets[e].tally;
      if (entry.applies && !entry.applies(c.problem)) continue;
      if (stop_set_on_error && t.failed()) continue;
      sets[e].ran = true;
      if (on_call) on_call(entry.prefix + spec.name());
      const CallResult run = phases.time(phases.gpu, [&] { return entry.call(c.problem, round); });
      if (on_called) on_called();
      if (!t.outcome(run)) {
        lost_ = !run.declined && run.context_lost;
        continue;
      }
      phases.gpu -= run.check_s + run.settle_s + run.cross_s;  // judging inside the call, counted apart
      phases.gpu_check += run.check_s;
      phases.settle += run.settle_s;
      phases.cross_check += run.cross_s;
      if (run.metrics) {
        ++phases.gpu_sets;
        phases.whole_on_cpu += run.whole_on_cpu;
        t.round(*run.metrics);
      } else {
        if (!c.problem.device_only) ++phases.cpu_sets;
        phases.time(phases.compare, [&] { return t.round(c.problem, c.expected, run.out.data()), 0; });
      }
    }
    recycle(std::move(c));
  }
  std::vector<SetResult> out;
  bool any_error = false;
  for (const Pending& s : sets) any_error |= s.ran && s.tally.failed();
  for (std::size_t e = 0; e < sets.size(); ++e) {
    if (e > 0 && !sets[e].ran) continue;  // an entry that applied to no round (fused on flat problems)
    SetResult r = sets[e].tally.finish();
    if (e == 0 && lost_ && !any_error) r.error = "not run: an earlier call broke the CUDA context";
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

std::vector<SetResult> unjudged(const std::vector<ProblemSpec>& specs, const std::string& why, Cause kind) {
  // Each set's copy of a long message (a compile log) is cut: the caller keeps the whole once.
  constexpr std::size_t keep = 1000;
  const std::string brief = why.size() <= keep ? why : why.substr(0, keep) + "... [" + std::to_string(why.size() - keep) + " more bytes]";
  std::vector<SetResult> out;
  for (const ProblemSpec& s : specs) {
    SetResult r{s.name(), s.set, s.grad_dtype};
    r.shape = s.shape();
    r.fail(brief, kind);
    out.push_back(std::move(r));
  }
  return out;
}

std::string outcome(const SetResult& r, Tier gate) {
  if (!r.supported()) return r.not_supported;
  if (!r.ran()) return r.error;
  if (r.integrity != "ok") return r.integrity;
  return fmt::format("max {:.3g} x 2^-24 S, {} over {}", r.metrics.max_scaled, r.metrics.over[static_cast<int>(gate)], name(gate));
}

}  // namespace rope2d::verify
