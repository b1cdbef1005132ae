// The judge with entries that need no GPU: outputs taken from the reference itself pass, a
// perturbed output fails, findings are kept once across rounds, metrics cover every round,
// a lost context stops the run, and entries apply only where they say.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>
#include <cmath>

#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d::verify;

namespace {

ProblemSpec small_layout() {
  ProblemSpec s;
  s.set = "layout";
  s.source = AngleSource::layout;
  s.seq_len = 40;
  s.seed = 5;
  return s;
}

// The correctly rounded result, as a perfect kernel would write it.
CallResult exact(const Problem& p) {
  CallResult c;
  c.out = compute_expected(p).fp32;
  return c;
}

}  // namespace

TEST(Judge, ReferenceOutputsPassAndRoundsMerge) {
  Judge judge(Tier::float32_bound, 3);
  RunOptions opts;
  judge.reproduce = &opts;
  int calls = 0;
  const Entry e{"", [&](const Problem& p, int) { ++calls; return exact(p); }, {}};
  const std::vector<SetResult> r = judge.judge(small_layout(), {e});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(r[0].metrics.count, 3 * small_layout().n());
  EXPECT_EQ(r[0].metrics.correctly_rounded, r[0].metrics.count);
  EXPECT_TRUE(r[0].passed(Tier::float32_bound));
  EXPECT_EQ(r[0].integrity, "ok");
  EXPECT_EQ(r[0].reproduce, reproduce_line(opts, "layout/bf16/1x40"));
}

TEST(Judge, AWrongElementFailsAndFindingsAreKeptOnce) {
  Judge judge(Tier::float32_bound, 2);
  const Entry e{"", [](const Problem& p, int round) {
    CallResult c = exact(p);
    c.out[7] = c.out[7] + 0.01f + std::fabs(c.out[7]);  // far beyond any tier
    c.findings = {"inputs modified by the call"};
    if (round == 1) c.findings.push_back("a second call on the same inputs gave different bits");
    return c;
  }, {}};
  const SetResult r = judge.judge(small_layout(), {e}).at(0);
  EXPECT_FALSE(r.passed(Tier::float32_bound));
  EXPECT_EQ(r.metrics.over[static_cast<int>(Tier::float32_bound)], 2);
  EXPECT_EQ(r.integrity, "inputs modified by the call; a second call on the same inputs gave different bits");
  EXPECT_EQ(r.disposition(Tier::float32_bound), Disposition::incorrect);
}

TEST(Judge, FusedEntriesApplyOnlyWithPositions) {
  Judge judge(Tier::float32_bound, 1);
  const Entry plain{"", [](const Problem& p, int) { return exact(p); }, {}};
  const Entry fused{"fused:", [](const Problem& p, int) { return exact(p); }, [](const Problem& p) { return !p.positions.empty(); }};
  EXPECT_EQ(judge.judge(small_layout(), {plain, fused}).size(), 2u);
  ProblemSpec flat;
  flat.set = "odd";
  flat.elements = 9;
  const std::vector<SetResult> r = judge.judge(flat, {plain, fused});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "odd/bf16/n=9");
}

TEST(Judge, ALostContextStopsEverythingAfter) {
  Judge judge(Tier::float32_bound, 2);
  int calls = 0;
  const Entry e{"", [&](const Problem&, int) {
    ++calls;
    CallResult c;
    c.error = "cudaErrorIllegalAddress";
    c.context_lost = true;
    return c;
  }, {}};
  const SetResult first = judge.judge(small_layout(), {e}).at(0);
  EXPECT_EQ(first.error, "cudaErrorIllegalAddress");
  EXPECT_TRUE(judge.context_lost());
  const SetResult next = judge.judge(small_layout(), {e}).at(0);
  EXPECT_EQ(next.error, "not run: an earlier call broke the CUDA context");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(next.disposition(Tier::float32_bound), Disposition::failed);
}

TEST(Judge, StopSetOnErrorReadsNoLaterRound) {
  Judge judge(Tier::float32_bound, 3);
  judge.stop_set_on_error = true;
  int calls = 0;
  const Entry e{"", [&](const Problem&, int) {
    ++calls;
    CallResult c;
    c.error = "not run";
    return c;
  }, {}};
  EXPECT_EQ(judge.judge(small_layout(), {e}).at(0).error, "not run");
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(judge.context_lost());
}

// Triton's sin/cos take a subnormal angle as zero: accepted by default, failed when IEEE
// behaviour is demanded; the reproduce line then carries --ieee-subnormals.
TEST(Judge, IeeeSubnormalsFailAFlushedAngle) {
  const Problem p = problem_of("triton", rope2d::ref::Dtype::bf16, {{-0x1.f4p-1, -0x1.cp-131, -0x1.99f1b8p-128f}});
  const Entry flushed{"", [](const Problem&, int) {
    CallResult c;
    c.out = {-0x1.cp-131f};
    return c;
  }, {}};
  const CaseSource cases = [&](int) { return Case{p, compute_expected(p)}; };
  Judge lenient(Tier::float32_bound, 1);
  const SetResult a = lenient.judge(p.spec, cases, {flushed}).at(0);
  EXPECT_TRUE(a.passed(Tier::float32_bound));
  EXPECT_EQ(a.metrics.subnormal_mode(), "flushes angle (1)");
  Judge ieee(Tier::float32_bound, 1);
  ieee.subnormals = Subnormals::ieee;
  RunOptions opts;
  opts.ieee_subnormals = true;
  ieee.reproduce = &opts;
  const SetResult b = ieee.judge(p.spec, cases, {flushed}).at(0);
  EXPECT_FALSE(b.passed(Tier::float32_bound));
  EXPECT_EQ(b.disposition(Tier::float32_bound), Disposition::incorrect);
  EXPECT_NE(b.reproduce.find(" --ieee-subnormals "), std::string::npos) << b.reproduce;
  // The correctly rounded result is IEEE behaviour and passes either way.
  const Entry right{"", [&](const Problem& q, int) { return exact(q); }, {}};
  EXPECT_TRUE(ieee.judge(p.spec, cases, {right}).at(0).passed(Tier::float32_bound));
}

// The worst set: its inputs come from the committed lists (the same in every round), not from
// a generator, and the reference's own results pass.
TEST(Judge, WorstSetIsJudgedOnTheCommittedLists) {
  const std::string dir = ROPE2D_TEST_DIR "/../../reference/worst";
  SuiteOptions o;
  o.quick = true;
  o.worst_dir = dir;
  std::vector<ProblemSpec> worst;
  for (const ProblemSpec& s : verification_suite(o))
    if (s.set == "worst") worst.push_back(s);
  ASSERT_EQ(worst.size(), 1u);
  const Problem lists = worst_problem(dir, rope2d::ref::Dtype::bf16);
  EXPECT_EQ(worst[0].n(), lists.n());
  Judge judge(Tier::float32_bound, 2);
  judge.sources = suite_sources(dir);
  std::vector<float> seen;
  const Entry e{"", [&](const Problem& p, int) {
    seen.insert(seen.end(), p.theta.begin(), p.theta.end());
    return exact(p);
  }, {}};
  const SetResult r = judge.judge(worst[0], {e}).at(0);
  EXPECT_TRUE(r.passed(Tier::float32_bound));
  EXPECT_EQ(r.metrics.count, 2 * lists.n());
  ASSERT_EQ(seen.size(), 2 * lists.theta.size());
  EXPECT_TRUE(std::equal(lists.theta.begin(), lists.theta.end(), seen.begin()));
  EXPECT_TRUE(std::equal(lists.theta.begin(), lists.theta.end(), seen.begin() + lists.n()));
  // Without the lists' folder the worst set cannot be made: an error, not a randn stand-in;
  // nor without the suite's sources, announced as the next set or not.
  Judge no_dir(Tier::float32_bound, 1);
  no_dir.sources = suite_sources("");
  EXPECT_THROW(no_dir.judge(worst[0], {e}), std::invalid_argument);
  Judge no_sources(Tier::float32_bound, 1);
  EXPECT_THROW(no_sources.judge(worst[0], {e}), std::invalid_argument);
  ProblemSpec small;
  small.set = "odd";
  small.elements = 64;
  small.seed = 3;
  no_sources.next = &worst[0];
  EXPECT_NO_THROW(no_sources.judge(small, {e}));
  EXPECT_THROW(no_sources.judge(worst[0], {e}), std::invalid_argument);
}

namespace {

// Every byte of a problem's inputs, for comparing problems made in different ways.
std::vector<std::uint8_t> input_bytes(const Problem& p) {
  std::vector<std::uint8_t> v(p.gc);
  v.insert(v.end(), p.gs.begin(), p.gs.end());
  const auto* t = reinterpret_cast<const std::uint8_t*>(p.theta.data());
  v.insert(v.end(), t, t + p.theta.size() * 4);
  const auto* q = reinterpret_cast<const std::uint8_t*>(p.positions.data());
  v.insert(v.end(), q, q + p.positions.size() * 4);
  return v;
}

}  // namespace

// Cases made ahead (the next round, and the next set's first round, in the background) and in
// reused buffers are the problems make_problem gives for each round: a larger set followed
// by a smaller one of another kind, then a set other than the announced next one.
TEST(Judge, CasesMadeAheadInReusedBuffersAreEachRoundsOwn) {
  ProblemSpec big;
  big.set = "randn";
  big.seq_len = 300;
  big.seed = 11;
  ProblemSpec flat;
  flat.set = "odd";
  flat.elements = 1001;
  flat.offset = {1, 2, 3, 0};
  flat.seed = 12;
  const ProblemSpec layout = small_layout();
  Judge judge(Tier::strict, 2);
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> seen;
  const Entry e{"", [&](const Problem& p, int round) {
                  seen.emplace_back(p.spec.name() + "#" + std::to_string(round), input_bytes(p));
                  return exact(p);
                }, {}};
  judge.next = &flat;
  EXPECT_TRUE(judge.judge(big, {e}).at(0).passed(Tier::strict));
  judge.next = &big;  // announced, but the layout set comes next: made afresh
  EXPECT_TRUE(judge.judge(flat, {e}).at(0).passed(Tier::strict));
  EXPECT_TRUE(judge.judge(layout, {e}).at(0).passed(Tier::strict));
  ASSERT_EQ(seen.size(), 6u);
  std::size_t k = 0;
  for (const ProblemSpec* s : std::vector<const ProblemSpec*>{&big, &flat, &layout})
    for (int r = 0; r < 2; ++r, ++k) {
      EXPECT_EQ(seen[k].first, s->name() + "#" + std::to_string(r));
      EXPECT_TRUE(seen[k].second == input_bytes(make_problem(s->round(r)))) << seen[k].first;
    }
}

// The set tally that the judge keeps per entry and that the C ABI and the contract checks feed
// themselves: a declined dtype is not supported (failed for bf16, the benchmark's dtype), a
// failed call is the set's error, findings are kept once each, each round is closed and merged
// with at most max_failures FAIL lines, and outputs of a problem made for the GPU are refused.
TEST(SetTally, OutcomesAndRoundsAsTheJudgeKeepsThem) {
  using rope2d::ref::Dtype;
  constexpr Tier gate = Tier::float32_bound;
  CallResult declined;
  declined.declined = true;
  SetTally fp16({"a", "layout", Dtype::fp16}, Dtype::fp16, gate);
  EXPECT_FALSE(fp16.outcome(declined));
  EXPECT_EQ(fp16.finish().disposition(gate), Disposition::not_supported);
  SetTally bf16({"a", "layout", Dtype::bf16}, Dtype::bf16, gate);
  EXPECT_FALSE(bf16.outcome(declined));
  EXPECT_EQ(bf16.finish().disposition(gate), Disposition::failed);

  const Problem p = make_problem(small_layout());
  const Expected x = compute_expected(p);
  SetTally t({"a", "layout", Dtype::bf16}, Dtype::bf16, gate, Subnormals::flush_allowed, 2);
  CallResult ok;
  ok.findings = {"inputs modified by the call"};
  ok.kernel_ms = 3;
  EXPECT_TRUE(t.outcome(ok));
  EXPECT_TRUE(t.outcome(ok));
  std::vector<float> wrong = x.fp32;
  for (int i : {1, 2, 3}) wrong[i] = wrong[i] + 0.01f + std::fabs(wrong[i]);  // far beyond any tier
  const Metrics& first = t.round(p, x, wrong.data());
  EXPECT_FALSE(first.passes(gate));
  EXPECT_EQ(first.sxb.rounds, 1);
  EXPECT_TRUE(t.round(p, x, x.fp32.data()).passes(gate));
  const SetResult r = t.finish();
  EXPECT_EQ(r.integrity, "inputs modified by the call");
  EXPECT_EQ(r.metrics.count, 2 * p.n());
  EXPECT_EQ(r.metrics.sxb.rounds, 2);
  EXPECT_EQ(r.metrics.failures.size(), 2u);
  EXPECT_EQ(r.kernel_ms, 3);
  EXPECT_EQ(r.disposition(gate), Disposition::incorrect);
  CallResult failed;
  failed.error = "the call returned 3";
  EXPECT_FALSE(t.outcome(failed));
  EXPECT_TRUE(t.failed());
  EXPECT_EQ(t.finish().error, "the call returned 3");

  Problem gpu_only = p;
  gpu_only.device_only = true;
  EXPECT_THROW(t.round(gpu_only, x, x.fp32.data()), std::logic_error);
}

// The comparison runs in chunks on every hardware thread; what it keeps is the same whatever
// order they finish in: the first failures by index, the worst of equals, sums bit for bit.
TEST(Compare, WhatIsKeptDoesNotDependOnTheOrderChunksFinish) {
  constexpr std::int64_t n = 6 * (1 << 16) + 123;  // six chunks and a tail
  std::vector<rope2d::ref::Element> elements(n);
  for (std::int64_t i = 0; i < n; ++i)
    elements[i] = {1.0 + static_cast<double>(i % 7) / 8, -0.5, static_cast<float>(i % 1000) / 16 + 0.25f};
  const Problem p = problem_of("chunks", rope2d::ref::Dtype::fp32, elements);
  const Expected x = compute_expected(p);
  std::vector<float> out(x.fp32.begin(), x.fp32.end());
  // Every element of the second chunk fails (the slow path), every 1000th of the later ones:
  // the chunks after it finish first, and the kept failures must still be the first by index.
  for (std::int64_t i = (1 << 16); i < n; i += i < 2 * (1 << 16) ? 1 : 1000) out[i] = -out[i] + 1.0f;
  const std::size_t keep = 5;
  const Metrics first = compare(p, x, out.data(), Tier::float32_bound, keep);
  ASSERT_EQ(first.failures.size(), keep);
  for (std::size_t k = 0; k < keep; ++k) EXPECT_EQ(first.failures[k].index, (1 << 16) + static_cast<std::int64_t>(k));
  for (int run = 0; run < 8; ++run) {
    const Metrics again = compare(p, x, out.data(), Tier::float32_bound, keep);
    ASSERT_EQ(again.failures.size(), keep);
    for (std::size_t k = 0; k < keep; ++k) EXPECT_EQ(again.failures[k].index, first.failures[k].index);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(again.sum_sq_scaled), std::bit_cast<std::uint64_t>(first.sum_sq_scaled)) << "run " << run;
    ASSERT_TRUE(again.worst && first.worst);
    EXPECT_EQ(again.worst->index, first.worst->index);
  }
}
