// A submission format as one harness (harness/harness.hpp) through the one pipeline
// verify(plan, harness, observer) (products/verify/verify.hpp), without a GPU: a fake kind
// whose entry is a host function. A recording observer checks the events, in order, and the
// report is read back. Controls: the same harness with a wrong output is judged incorrect (the
// verdict comes from the harness's entries, not from verify()), a harness that fails to
// prepare fails every set without a call, the C ABI checks run only for a harness that hands
// its entry point, and a host lost mid-run stops the run (no added checks) with its report.
#include "harness/harness.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "products/verify/verify.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace fs = std::filesystem;
namespace ref = rope2d::ref;
using namespace rope2d::verify;

namespace {

// The fake kind: outputs from the certified reference on the host, or (broken) each one's
// sign flipped; the events and the report lines it adds are its own.
class HostFunctionHarness final : public harness::Harness {
 public:
  bool broken = false, fail_prepare = false, hold_ends = false, with_abi = false;
  int calls = 0;
  int lose_host_at = 0;  // > 0: that call finds the host gone (nothing more can run)
  bool ended = false;

  std::string_view kind() const override { return "host function (test)"; }
  std::optional<harness::Unprepared> prepare() override {
    if (fail_prepare) return harness::Unprepared{"no such entry point", Cause::build};
    return std::nullopt;
  }
  void header(Report& rep, const std::vector<harness::HeaderLine>& machine) const override {
    rep.title = "rope2d verify: fake";
    rep.header = {{"submission", "fake"}, {"kind", std::string(kind())}};
    rep.header.insert(rep.header.end(), machine.begin(), machine.end());
    rep.warnings.push_back("called in the test's own process");
  }
  harness::Judging judging(bool) const override { return {.ends_after_host = hold_ends}; }
  std::vector<Entry> entries(Tier, Subnormals, bool) override {
    return {{"", [this](const Problem& p, int) {
               ++calls;
               CallResult c;
               if (calls == lose_host_at) {
                 c.error = "the kernel host is gone";
                 c.context_lost = true;
                 return c;
               }
               c.out = compute_expected(p).fp32;
               if (broken)
                 for (float& x : c.out) x = -x;
               return c;
             },
             {}}};
  }
  std::optional<harness::CAbi> c_abi() override {
    if (!with_abi) return std::nullopt;
    return harness::CAbi{};
  }
  void judged(Report& rep, const Phases&, bool) override { rep.header.push_back({"calls", std::to_string(calls)}); }
  void end(Report& rep) override {
    ended = true;
    rep.header.push_back({"host", "ended"});
  }
  std::optional<harness::Unprepared> cpu_checks(Report&, const harness::Say&) override { return std::nullopt; }
};

// Every event, one line each.
class Recorder final : public Observer {
 public:
  std::vector<std::string> events;
  bool judged = false;
  void device(const std::string& name) override { events.push_back("device " + name); }
  void start(const std::string& name, std::size_t k, std::size_t n) override {
    events.push_back("start " + name + " " + std::to_string(k) + "/" + std::to_string(n));
  }
  void call(const std::string& name) override { events.push_back("call " + name); }
  void called() override { events.push_back("called"); }
  void end(const SetResult& r) override { events.push_back("end " + r.name); }
  void done(const Report& rep, bool j) override {
    events.push_back(std::string("done ") + std::string(name(rep.verdict())));
    judged = j;
  }
  std::vector<std::string> of(const std::string& kind) const {
    std::vector<std::string> v;
    for (const std::string& e : events)
      if (e.rfind(kind + " ", 0) == 0) v.push_back(e);
    return v;
  }
};

// The C ABI checks, counted (a fake's entry point is never called).
class CountedChecks final : public CAbiChecks {
 public:
  mutable int contracts = 0, benches = 0;
  std::vector<SetResult> contract(const harness::CAbi&, ref::Dtype d, Tier, Subnormals, std::uint64_t,
                                  const Watch& watch) const override {
    ++contracts;
    watch("contract/n0", true);
    watch("contract/n0", false);
    SetResult r{"contract/n0/" + std::string(ref::name(d)), "contract", d};
    r.integrity = "ok";
    return {r};
  }
  std::vector<SetResult> huge(const harness::CAbi&, const SuiteOptions&, Tier, Subnormals) const override { return {}; }
  AddedSets bench(const harness::CAbi&, Tier, Subnormals, std::uint64_t) const override {
    ++benches;
    return {{{"bench", "0 workloads"}}, {}};
  }
};

Plan small_plan(const std::string& out) {
  Plan plan;
  SuiteOptions o;
  o.quick = true;
  plan.specs = smoke_suite(o);
  plan.specs.resize(std::min<std::size_t>(plan.specs.size(), 2));
  plan.run.grad_dtypes = {ref::Dtype::bf16};
  plan.run.quick = true;
  plan.device.name = "no device (test)";
  plan.device_inputs = false;
  plan.out_dir = out;
  return plan;
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("rope2d_harness_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST(Harness, AFakeKindGoesThroughVerify) {
  const fs::path out = scratch("honest");
  const Plan plan = small_plan(out.string());
  ASSERT_EQ(plan.specs.size(), 2u);
  HostFunctionHarness h;
  Recorder rec;
  const Report rep = verify(plan, h, rec);
  // The events: the device, then each set's start, its calls and its end, then done.
  ASSERT_FALSE(rec.events.empty());
  EXPECT_EQ(rec.events.front(), "device no device (test)");
  EXPECT_EQ(rec.events.back(), "done passed");
  EXPECT_TRUE(rec.judged);
  const std::string a = plan.specs[0].name(), b = plan.specs[1].name();
  EXPECT_EQ(rec.of("start"), (std::vector<std::string>{"start " + a + " 0/2", "start " + b + " 1/2"}));
  EXPECT_EQ(rec.of("end"), (std::vector<std::string>{"end " + a, "end " + b}));
  EXPECT_EQ(h.calls, 2 * plan.run.rounds);  // every round of every set called the harness's entry
  EXPECT_EQ(rec.of("call").size(), static_cast<std::size_t>(h.calls));
  const auto at = [&](const std::string& e) { return std::find(rec.events.begin(), rec.events.end(), e) - rec.events.begin(); };
  EXPECT_LT(at("end " + a), at("start " + b + " 1/2"));  // each set's end as it is judged
  // The report: the harness's header around the machine's lines, the sets with reproduce lines.
  EXPECT_EQ(rep.title, "rope2d verify: fake");
  ASSERT_GE(rep.header.size(), 3u);
  EXPECT_EQ(rep.header[1], (std::pair<std::string, std::string>{"kind", "host function (test)"}));
  EXPECT_EQ(rep.header[2].first, "gpu");
  EXPECT_EQ(rep.header[rep.header.size() - 2], (std::pair<std::string, std::string>{"calls", std::to_string(h.calls)}));
  EXPECT_EQ(rep.header.back(), (std::pair<std::string, std::string>{"host", "ended"}));
  EXPECT_EQ(rep.warnings, std::vector<std::string>{"called in the test's own process"});
  const Report back = read_report_json((out / "report.json").string());
  ASSERT_EQ(back.results.size(), 2u);
  EXPECT_EQ(back.results[0].name, a);
  EXPECT_EQ(back.verdict(), Disposition::passed);
  EXPECT_EQ(back.results[0].reproduce, reproduce_line(plan.run, a));
  fs::remove_all(out.parent_path());
}

// The registry is tested in the build whose library holds the harnesses (without
// CUDA: the sanitizer stage; with it, the harnesses are in the device library).
#ifdef ROPE2D_HARNESSES_IN_LIBRARY
TEST(Harness, ANewKindWithAHarnessOfItsOwnIsOneRegistryLine) {
  // The line: files ending .hostfn are made ready and called by the fake (this file's harness).
  harness::add_submission_kind({.name = "host function (test)",
                                .suffix = ".hostfn",
                                .preparation = harness::Preparation::copy_library,
                                .host = harness::Host::own,
                                .make = [](harness::SubmissionKind, const harness::HarnessOptions&) {
                                  return std::unique_ptr<harness::Harness>(std::make_unique<HostFunctionHarness>());
                                }});
  harness::HarnessOptions o;
  o.submission = "mine.hostfn";
  const std::unique_ptr<harness::Harness> h = harness::harness_for(o);
  ASSERT_NE(dynamic_cast<HostFunctionHarness*>(h.get()), nullptr);
  Recorder rec;
  EXPECT_EQ(verify(small_plan(""), *h, rec).verdict(), Disposition::passed);
  EXPECT_EQ(rec.events.back(), "done passed");
  // Controls: the other files keep their hosts' harnesses; a line of its own host without a
  // harness, or with a harness but a shared host, is refused.
  o.submission = "kernel.cu";
  EXPECT_EQ(dynamic_cast<HostFunctionHarness*>(harness::harness_for(o).get()), nullptr);
  EXPECT_THROW(harness::add_submission_kind({"own, no harness", ".nomake", harness::Preparation::copy_library, harness::Host::own}),
               std::invalid_argument);
  EXPECT_THROW(harness::add_submission_kind({.name = "a harness, a shared host",
                                             .suffix = ".both",
                                             .preparation = harness::Preparation::copy_library,
                                             .host = harness::Host::kernel,
                                             .make = [](harness::SubmissionKind, const harness::HarnessOptions&) {
                                               return std::unique_ptr<harness::Harness>();
                                             }}),
               std::invalid_argument);
}
#endif

TEST(Harness, TheVerdictIsTheHarnesss) {
  // The control: the same harness with every output's sign flipped.
  const fs::path out = scratch("broken");
  HostFunctionHarness h;
  h.broken = true;
  Recorder rec;
  const Report rep = verify(small_plan(out.string()), h, rec);
  EXPECT_EQ(rep.verdict(), Disposition::incorrect);
  EXPECT_EQ(rec.events.back(), "done incorrect");
  EXPECT_GT(h.calls, 0);
  fs::remove_all(out.parent_path());
}

TEST(Harness, HeldEndsComeAfterTheHostsEnd) {
  HostFunctionHarness h;
  h.hold_ends = true;
  Recorder rec;
  const Plan plan = small_plan("");
  verify(plan, h, rec);
  const auto is = [](const std::string& kind) { return [kind](const std::string& e) { return e.rfind(kind, 0) == 0; }; };
  const auto last_start = std::find_if(rec.events.rbegin(), rec.events.rend(), is("start ")).base();
  const auto first_end = std::find_if(rec.events.begin(), rec.events.end(), is("end "));
  ASSERT_NE(first_end, rec.events.end());
  EXPECT_GE(first_end, last_start);  // every set judged before the first end
  EXPECT_EQ(rec.of("end").size(), plan.specs.size());
}

TEST(Harness, AFailedPrepareFailsEverySetWithoutACall) {
  HostFunctionHarness h;
  h.fail_prepare = true;
  Recorder rec;
  const Plan plan = small_plan("");
  const Report rep = verify(plan, h, rec);
  EXPECT_EQ(h.calls, 0);
  EXPECT_TRUE(rec.of("start").empty());
  EXPECT_EQ(rec.of("end").size(), plan.specs.size());
  EXPECT_FALSE(rec.judged);
  ASSERT_EQ(rep.results.size(), plan.specs.size());
  EXPECT_EQ(rep.results[0].error_cause, Cause::build);
  EXPECT_EQ(rep.results[0].reproduce, reproduce_line(plan.run, plan.specs[0].name()));
  EXPECT_NE(std::find(rep.warnings.begin(), rep.warnings.end(), "the submission could not be built: no such entry point"),
            rep.warnings.end());
  EXPECT_EQ(rep.header.back(), (std::pair<std::string, std::string>{"host", "ended"}));  // the box's words on its build
}

TEST(Harness, TheCAbiChecksRunForAHarnessWithAnEntryPoint) {
  CountedChecks checks;
  Plan plan = small_plan("");
  plan.checks = &checks;
  plan.bench = true;
  HostFunctionHarness without;
  Recorder r1;
  verify(plan, without, r1);
  EXPECT_EQ(checks.contracts + checks.benches, 0);  // no entry point: no contract, no benchmark
  HostFunctionHarness with;
  with.with_abi = true;
  Recorder r2;
  const Report rep = verify(plan, with, r2);
  EXPECT_EQ(checks.contracts, 1);  // one grad dtype
  EXPECT_EQ(checks.benches, 1);
  EXPECT_EQ(rep.results.back().name, "contract/n0/bf16");
  EXPECT_EQ(r2.of("end").back(), "end contract/n0/bf16");
  EXPECT_NE(std::find(r2.events.begin(), r2.events.end(), "call contract/n0"), r2.events.end());
  EXPECT_NE(std::find(rep.header.begin(), rep.header.end(), std::pair<std::string, std::string>{"bench", "0 workloads"}),
            rep.header.end());
  plan.contract = false;  // --only: the contract not run, the benchmark still
  HostFunctionHarness again;
  again.with_abi = true;
  Recorder r3;
  verify(plan, again, r3);
  EXPECT_EQ(checks.contracts, 1);
  EXPECT_EQ(checks.benches, 2);
}

TEST(Harness, AHostLostMidRunStopsTheRun) {
  // The host gone at the first call (a box's host killed, say): that set fails with the call's
  // words, the next is not run, and neither the call contract nor the benchmark calls the entry
  // point; the host's end and the report still come, and the verdict is the submission's failure.
  CountedChecks checks;
  Plan plan = small_plan("");
  plan.checks = &checks;
  plan.bench = true;
  HostFunctionHarness h;
  h.with_abi = true;
  h.lose_host_at = 1;
  Recorder rec;
  const Report rep = verify(plan, h, rec);
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(checks.contracts + checks.benches, 0);
  ASSERT_EQ(rep.results.size(), plan.specs.size());
  EXPECT_EQ(rep.results[0].error, "the kernel host is gone");
  EXPECT_EQ(rep.results[1].error, "not run: an earlier call broke the CUDA context");
  EXPECT_EQ(rec.of("end").size(), plan.specs.size());
  EXPECT_EQ(rec.of("start").size(), plan.specs.size());
  EXPECT_TRUE(h.ended);
  EXPECT_TRUE(rec.judged);
  EXPECT_EQ(rec.events.back(), "done failed");
}
