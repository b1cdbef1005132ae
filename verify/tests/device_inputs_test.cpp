// The device path's plumbing without a GPU: a counter-based problem made without host inputs
// (Problem::device_only) recomputes every element from the counter exactly as the full
// problem holds it, and its reference is the same; a judge with device_inputs hands such
// problems to an entry that judges them itself (here with the GPU comparison's host twin and
// settle, with the counter as the lookup, as the device entry does) and gives the same set
// results, FAIL lines included, as the CPU judge; other sets stay on the CPU.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/judge/judge.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

ProblemSpec counter_spec(AngleSource src, ref::Dtype d, std::int64_t seq) {
  ProblemSpec s;
  s.set = src == AngleSource::layout ? "layout" : "randn";
  s.source = src;
  s.grad_dtype = d;
  s.seq_len = seq;
  s.seed = name_seed(1, s.name());
  return s;
}

bool same_bits(const ref::Element& a, const ref::Element& b) {
  return std::bit_cast<std::uint64_t>(a.gc) == std::bit_cast<std::uint64_t>(b.gc) &&
         std::bit_cast<std::uint64_t>(a.gs) == std::bit_cast<std::uint64_t>(b.gs) &&
         std::bit_cast<std::uint32_t>(a.t) == std::bit_cast<std::uint32_t>(b.t);
}

// A kernel's outputs: the correctly rounded result with every 97th element off by 8 ulps
// (failing the gate), so FAIL lines and counts are compared too.
std::vector<float> outputs(const Problem& p) {
  std::vector<float> out = compute_expected(p).fp32;
  for (std::size_t i = 0; i < out.size(); i += 97) out[i] = std::nextafter(std::nextafter(out[i], 1e30f), 1e30f) * 1.00001f;
  return out;
}

}  // namespace

TEST(DeviceInputs, ElementsComeFromTheCounterWithoutHostArrays) {
  for (ref::Dtype d : ref::grad_dtypes)
    for (AngleSource src : {AngleSource::randn, AngleSource::layout}) {
      const ProblemSpec s = counter_spec(src, d, 67);
      const Problem full = make_problem(s);
      Problem lean;
      make_problem(s, lean, false);
      ASSERT_TRUE(full.counter && lean.counter && lean.device_only && !full.device_only);
      EXPECT_TRUE(lean.gc.empty() && lean.gs.empty() && lean.theta.empty());
      ASSERT_EQ(lean.n(), full.n());
      for (std::int64_t i = 0; i < full.n(); ++i) ASSERT_TRUE(same_bits(lean.element(i), full.element(i))) << s.name() << " " << i;
      const Expected a = compute_expected(full), b = compute_expected(lean);
      EXPECT_EQ(std::memcmp(a.fp32.data(), b.fp32.data(), 4 * a.fp32.size()), 0) << s.name();
    }
  // Not counter-based: made in full whatever is asked.
  ProblemSpec r = counter_spec(AngleSource::randn, ref::Dtype::bf16, 8);
  r.set = "subnormal";
  r.source = AngleSource::regime;
  r.regime = ref::Regime::subnormal;
  Problem q;
  make_problem(r, q, false);
  EXPECT_FALSE(q.device_only || q.counter);
  EXPECT_EQ(q.n(), r.n());
  EXPECT_EQ(q.theta.size(), static_cast<std::size_t>(r.n()));
}

TEST(DeviceInputs, AJudgeOfDeviceOnlyProblemsGivesTheCpuJudgesResults) {
  // The device entry's judging on the host: the twin pass over the inputs the counter gives,
  // then settle() with the counter as the lookup.
  int judged_itself = 0, compared_by_judge = 0;
  const Entry device{"", [&](const Problem& p, int) {
                       CallResult c;
                       if (!p.device_only) {
                         ++compared_by_judge;
                         c.out = outputs(p);
                         return c;
                       }
                       ++judged_itself;
                       const Problem h = make_problem(p.spec);  // the bits the GPU would make
                       c.out = outputs(h);
                       CheckOptions o;
                       o.max_deferred = p.n();
                       const CheckPass pass = host_check(h.gc.data(), h.gs.data(), h.theta.data(), c.out.data(), p.n(), p.spec.grad_dtype, o);
                       c.metrics = settle(pass, [&](std::int64_t i) { return p.element(i); }, Tier::float32_bound);
                       return c;
                     },
                     {}};
  const Entry cpu{"", [&](const Problem& p, int) {
                    CallResult c;
                    c.out = outputs(p);
                    return c;
                  },
                  {}};
  ProblemSpec regime = counter_spec(AngleSource::randn, ref::Dtype::fp16, 16);
  regime.set = "near_axis";
  regime.source = AngleSource::regime;
  regime.regime = ref::Regime::near_axis;
  for (const ProblemSpec& s : {counter_spec(AngleSource::randn, ref::Dtype::bf16, 40), counter_spec(AngleSource::layout, ref::Dtype::fp16, 33),
                               counter_spec(AngleSource::randn, ref::Dtype::fp32, 9), regime}) {
    Judge on_gpu(Tier::float32_bound, 2), on_cpu(Tier::float32_bound, 2);
    on_gpu.device_inputs = true;
    const std::vector<SetResult> a = on_gpu.judge(s, {device}), b = on_cpu.judge(s, {cpu});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    const Metrics &x = a[0].metrics, &y = b[0].metrics;
    EXPECT_EQ(x.count, y.count) << s.name();
    EXPECT_GT(x.over[static_cast<int>(Tier::float32_bound)], 0) << s.name();
    for (int k = 0; k < tier_count; ++k) EXPECT_EQ(x.over[k], y.over[k]) << s.name() << " tier " << k;
    EXPECT_EQ(x.correctly_rounded, y.correctly_rounded) << s.name();
    EXPECT_EQ(x.max_scaled, y.max_scaled) << s.name();
    ASSERT_EQ(x.failures.size(), y.failures.size()) << s.name();
    for (std::size_t k = 0; k < x.failures.size(); ++k) EXPECT_EQ(x.failures[k].line(s.name()), y.failures[k].line(s.name()));
    EXPECT_EQ(a[0].passed(Tier::float32_bound), b[0].passed(Tier::float32_bound));
  }
  EXPECT_EQ(judged_itself, 3 * 2);     // the three counter-based sets, two rounds each
  EXPECT_EQ(compared_by_judge, 1 * 2);  // the regime set stays on the CPU
  // An entry that does not judge a device_only problem is an error of the wiring, not a verdict.
  Judge wrong(Tier::float32_bound, 1);
  wrong.device_inputs = true;
  EXPECT_THROW(wrong.judge(counter_spec(AngleSource::randn, ref::Dtype::bf16, 4), {cpu}), std::logic_error);
}
