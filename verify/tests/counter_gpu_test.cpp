// GPU test (label gpu; exit 77 without a device, gpu_test_main.cpp): the counter-based inputs made on the GPU
// (device_kernels.cu, from ref/counter_random.hpp) equal the CPU's make_problem bit for bit,
// for millions of elements per grad dtype, randn and layout sets; the check finds a single
// flipped bit; and the testbed's own path (inputs made on the GPU, misaligned and flush with
// their allocation's end) judges the project's kernel as passing with every integrity check ok;
// and the device path's judging (judged_on_gpu: inputs made and judged on the GPU, no host
// inputs) gives the metrics the CPU judge gives on the same outputs, FAIL lines included.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu_check_compare.hpp"  // close(): to the last bits the two sides' sincos differ by
#include "rope2d/rope2d_backward.h"
#include "harness/testbed/device.hpp"
#include "harness/testbed/device_judge.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/problem.hpp"

using namespace rope2d;
using namespace rope2d::verify;
using rope2d::verify::compare_test::close;

namespace {

ProblemSpec spec(const std::string& set, AngleSource src, ref::Dtype d, std::int64_t batch, std::int64_t seq) {
  ProblemSpec s;
  s.set = set;
  s.source = src;
  s.grad_dtype = d;
  s.batch = batch;
  s.seq_len = seq;
  s.seed = name_seed(1, s.name());
  return s;
}

Testbed& testbed() {
  static Testbed bed;
  return bed;
}

}  // namespace

TEST(CounterGpu, InputsMadeOnTheGpuEqualTheCpus) {
  std::int64_t compared = 0;
  for (ref::Dtype d : ref::grad_dtypes) {
    // randn: 32 x 1024 x 128 = 4,194,304 elements (grads and angles); layout: 16 x 2048 x 128;
    // and a large round of the same set (another key) with index bits past 2^24.
    for (const ProblemSpec& s : {spec("randn", AngleSource::randn, d, 32, 1024), spec("layout", AngleSource::layout, d, 16, 2048),
                                 spec("randn", AngleSource::randn, d, 1, 1 << 18).round(1)}) {
      const Problem p = make_problem(s);
      const std::string m = testbed().counter_mismatch(p);
      EXPECT_TRUE(m.empty()) << s.name() << " round seed " << s.seed << ": differ at " << m;
      compared += p.n();
    }
  }
  std::printf("compared %lld elements (grads and angles)\n", static_cast<long long>(compared));
}

TEST(CounterGpu, AFlippedHostBitIsReported) {
  Problem p = make_problem(spec("randn", AngleSource::randn, ref::Dtype::bf16, 1, 773));
  p.gs[2 * 1000] ^= 1;
  EXPECT_FALSE(testbed().counter_mismatch(p).empty());
}

TEST(CounterGpu, TestbedWithGpuMadeInputsPassesTheKernel) {
  // Inputs made on the GPU at every placement the suite uses.
  for (ref::Dtype d : ref::grad_dtypes)
    for (int variant = 0; variant < 3; ++variant) {
      ProblemSpec s = spec(variant == 2 ? "layout" : "odd", variant == 2 ? AngleSource::layout : AngleSource::randn, d, 1, 1);
      if (variant == 2) {
        s.seq_len = 331;
        s.offset = {1, 3, 2, 1};
      } else {
        s.elements = 4099 + variant;
        s.flush_end = variant == 1;
        if (variant == 0) s.offset = {3, 1, 2, 0};
      }
      s.seed = name_seed(1, s.name());
      const Problem q = make_problem(s);
      const DeviceRun run = testbed().run(&rope2d_backward, q);
      const Metrics m = compare(q, compute_expected(q), run.out.data(), Tier::float32_bound);
      EXPECT_TRUE(run.integrity.ok()) << s.name() << ": " << run.integrity.describe();
      EXPECT_TRUE(m.passes(Tier::float32_bound)) << s.name() << (s.flush_end ? " (flush end)" : "");
      EXPECT_EQ(m.count, q.n()) << s.name();
      if (variant == 2) {
        const DeviceRun fused = testbed().run_fused(&rope2d_backward_fused, q);
        const Metrics f = compare(q, compute_expected(q), fused.out.data(), Tier::float32_bound);
        EXPECT_TRUE(fused.integrity.ok()) << "fused " << s.name() << ": " << fused.integrity.describe();
        EXPECT_TRUE(f.passes(Tier::float32_bound)) << "fused " << s.name();
      }
    }
}

TEST(CounterGpu, DeviceJudgingEqualsTheCpuJudge) {
  // judged_on_gpu: inputs made and judged on the GPU, no host inputs, against compare() on the
  // same outputs; maxima to the last bits the two sides' sincos differ by.
  DeviceJudging how;
  const Entry plain = plain_entry(testbed(), &rope2d_backward, how), fused = fused_entry(testbed(), &rope2d_backward_fused, how);
  for (ref::Dtype d : ref::grad_dtypes)
    for (const ProblemSpec& s : {spec("randn", AngleSource::randn, d, 8, 1024), spec("layout", AngleSource::layout, d, 4, 853)}) {
      Problem lean;
      make_problem(s, lean, false);
      const Problem full = make_problem(s);
      const Expected x = compute_expected(full);
      for (const Entry* e : {&plain, &fused}) {
        if (e == &fused && full.positions.empty()) continue;
        for (int round = 0; round < 2; ++round) {
          const std::string what = e->prefix + s.name() + " round " + std::to_string(round);
          const CallResult c = e->call(lean, round);
          ASSERT_TRUE(c.metrics && c.error.empty() && c.findings.empty()) << what << ": " << c.error;
          const Metrics cpu = compare(full, x, c.out.data(), Tier::float32_bound);
          const Metrics& gpu = *c.metrics;
          EXPECT_EQ(gpu.count, cpu.count) << what;
          EXPECT_EQ(gpu.correctly_rounded, cpu.correctly_rounded) << what;
          EXPECT_EQ(gpu.histogram, cpu.histogram) << what;
          EXPECT_EQ(gpu.failures.size(), cpu.failures.size()) << what;
          for (int k = 0; k < tier_count; ++k) EXPECT_EQ(gpu.over[k], cpu.over[k]) << what << " tier " << k;
          EXPECT_TRUE(close(gpu.max_scaled, cpu.max_scaled)) << what << ": max";
          EXPECT_TRUE(close(gpu.max_ulp, cpu.max_ulp)) << what << ": max ulp";
          EXPECT_TRUE(gpu.passes(Tier::float32_bound)) << what;
        }
      }
    }
}
