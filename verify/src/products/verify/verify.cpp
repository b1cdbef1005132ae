// The one pipeline from a harness to its report (verify.hpp).
#include "products/verify/verify.hpp"

#include <fmt/format.h>

#include <set>

#include "harness/solution.hpp"
#include "rope2d/verify/judge/worst.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace rope2d::verify {

namespace {

std::string reproduce_of(const Plan& plan, const std::string& set) {
  return plan.reproduce ? plan.reproduce(set) : reproduce_line(plan.run, set);
}

// A submission that could not be made ready: every set fails for the one reason, with its
// status (COMPILE_ERROR, TIMEOUT, RUNTIME_ERROR); the whole message once, among the warnings.
Report unprepared(const Plan& plan, harness::Harness& h, const harness::Unprepared& why, Report& rep, Observer& obs) {
  h.end(rep);
  rep.warnings.push_back("the submission could not be " + std::string(why.cause == Cause::runtime ? "loaded" : "built") +
                         ": " + why.why);
  rep.results = unjudged(plan.specs, why.why, why.cause);
  for (SetResult& r : rep.results) r.reproduce = reproduce_of(plan, r.name);
  if (!plan.out_dir.empty()) write_report(plan.out_dir, rep);
  for (const SetResult& r : rep.results) obs.end(r);
  obs.done(rep, false);
  return rep;
}

// A run's results as they come: the observer hears each set's end at once, or (a harness whose
// sets end with its host) when the report is complete.
struct Results {
  Report& rep;
  Observer& obs;
  bool hold;
  void add(SetResult r) {
    if (!hold) obs.end(r);
    rep.results.push_back(std::move(r));
  }
};

// Every set of the plan, in order, through the one Judge and the harness's entries.
void judge_suite(const Plan& plan, harness::Harness& h, Judge& judge, Results& out, Observer& obs) {
  const std::vector<Entry> entries = h.entries(plan.run.tier, judge.subnormals, judge.device_inputs);
  for (std::size_t k = 0; k < plan.specs.size(); ++k) {
    obs.start(plan.specs[k].name(), k, plan.specs.size());
    judge.next = k + 1 < plan.specs.size() ? &plan.specs[k + 1] : nullptr;  // made during this set's last round
    for (SetResult& r : judge.judge(plan.specs[k], entries)) {
      if (plan.reproduce) r.reproduce = plan.reproduce(r.name);
      out.add(std::move(r));
    }
  }
}

// The sets added after the suite where the harness has a C ABI entry point, so that a fault in
// them cannot hide the suite's results: the call contract (n == 0, two calls in flight, graph
// capture; one set per check and dtype) and, with --huge, the sets past 2^31 elements.
void added_checks(const Plan& plan, const harness::CAbi& abi, const Judge& judge, Results& out, Observer& obs) {
  if (!plan.contract) return;
  const auto watch = [&](const std::string& name, bool calling) {
    if (calling) obs.call(name);
    else obs.called();
  };
  for (ref::Dtype d : plan.run.grad_dtypes)
    for (SetResult& r : plan.checks->contract(abi, d, plan.run.tier, judge.subnormals, plan.run.seed, watch)) out.add(std::move(r));
  if (plan.huge) {  // past 2^31 elements, judged on a sample
    SuiteOptions o;
    o.seed = plan.run.seed;
    o.grad_dtypes = plan.run.grad_dtypes;
    for (SetResult& r : plan.checks->huge(abi, o, plan.run.tier, judge.subnormals)) out.add(std::move(r));
  }
}

}  // namespace

std::vector<harness::HeaderLine> machine_lines(const Plan& plan) {
  const DeviceInfo& dev = plan.device;
  return {{"gpu", fmt::format("{} ({} SMs, {:.0f} GiB)", dev.name, dev.sm_count, dev.memory_gib)},
          {"driver / runtime", fmt::format("{} / {}", dev.driver_version, dev.runtime_version)},
          {"reference", "correctly rounded float32: certified double enclosure, MPFR (Ziv) fallback"},
          {"seeds", fmt::format("base {}, {} rounds of fresh inputs per set", plan.run.seed, plan.run.rounds)},
          {"subnormals", plan.run.ieee_subnormals ? "IEEE demanded (--ieee-subnormals)"
                                                  : "flushing to zero accepted (--ieee-subnormals demands IEEE)"}};
}

Report verify(const Plan& plan, harness::Harness& h, Observer& obs) {
  const std::optional<harness::Unprepared> failed = h.prepare();
  Report rep;
  rep.gate = plan.run.tier;
  h.header(rep, machine_lines(plan));
  obs.device(plan.device.name);
  if (failed) return unprepared(plan, h, *failed, rep, obs);
  const harness::Judging how = h.judging(plan.device_inputs);
  Judge judge(plan.run.tier, plan.run.rounds);
  judge.reproduce = plan.reproduce ? nullptr : &plan.run;  // the plan's own lines: judge_suite
  judge.stop_set_on_error = how.stop_set_on_error;
  if (plan.run.ieee_subnormals) judge.subnormals = Subnormals::ieee;
  judge.sources = suite_sources(plan.run.worst_dir);
  judge.on_call = [&](const std::string& name) { obs.call(name); };
  judge.on_called = [&] { obs.called(); };
  judge.device_inputs = how.device_inputs;
  Results out{rep, obs, how.ends_after_host};
  const std::optional<harness::Unprepared> unserved = h.unserved();
  if (unserved) {
    rep.results = unjudged(plan.specs, unserved->why, unserved->cause);
    for (SetResult& r : rep.results) r.reproduce = reproduce_of(plan, r.name);
  } else {
    judge_suite(plan, h, judge, out, obs);
  }
  const std::optional<harness::CAbi> abi = unserved ? std::nullopt : h.c_abi();
  if (abi && plan.checks && !judge.context_lost()) added_checks(plan, *abi, judge, out, obs);
  h.judged(rep, judge.phases, judge.device_inputs);
  if (abi && plan.checks && plan.bench && !judge.context_lost()) {
    AddedSets b = plan.checks->bench(*abi, plan.run.tier, judge.subnormals, plan.run.seed);
    rep.header.insert(rep.header.end(), b.header.begin(), b.header.end());
    for (SetResult& r : b.results) out.add(std::move(r));
  }
  h.end(rep);
  std::set<std::string> beyond;  // sets outside a solution's definition: judged apart, never in the verdict
  for (const ProblemSpec& s : plan.specs)
    if (!within_definition(s, plan.definition_dtypes, plan.definition_head_dim)) beyond.insert(s.name());
  for (SetResult& r : rep.results) {
    r.beyond_definition = beyond.count(r.name) > 0;
    if (how.ends_after_host) obs.end(r);
  }
  if (!plan.out_dir.empty()) write_report(plan.out_dir, rep);
  obs.done(rep, true);
  return rep;
}

}  // namespace rope2d::verify
