// The GPU comparison on the device against the CPU judge (compare()) on fresh inputs: every
// regime, the special cross product, every grad dtype, outputs of honest, flushing, perturbed
// and defective kernels; the reference of every settled element equal bit for bit (the
// reference's own bits as output are all settled correctly rounded); and the device pass
// equal to its host twin; and the GPU sweep equal to the CPU judge on the kernel's outputs.
// Exits 77 (SKIPPED) without a GPU (gpu_test_main.cpp). ROPE2D_SEED fixes the inputs.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>

#include "gpu_check_compare.hpp"
#include "harness/testbed/device.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "products/sweep/sweep.hpp"

using namespace rope2d::verify;
using namespace rope2d::verify::compare_test;

namespace {

std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* env = std::getenv("ROPE2D_SEED");
    const std::uint64_t v = env ? std::strtoull(env, nullptr, 10)
                                : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::printf("inputs: ROPE2D_SEED=%llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

}  // namespace

TEST(GpuCheckDevice, SameMetricsAsTheCpuJudge) {
  for_each_output(seed(), 1 << 16, [](const ProblemSpec& s, const Problem& p, const Expected& x, int kind, const std::vector<float>& out) {
    const std::string what = s.name() + " kernel " + std::to_string(kind);
    for (Subnormals mode : {Subnormals::flush_allowed, Subnormals::ieee})
      expect_same_metrics(compare(p, x, out.data(), Tier::float32_bound, max_failures_kept, mode),
                          gpu_compare(p, out.data(), Tier::float32_bound, max_failures_kept, mode), what);
    if (kind == 0) {
      // The reference's own bits: every element the GPU settles is correctly rounded there.
      const Metrics m = gpu_compare(p, out.data(), Tier::float32_bound);
      EXPECT_EQ(m.correctly_rounded, m.count) << what;
    }
  });
}

TEST(GpuCheckDevice, DevicePassEqualsItsHostTwin) {
  // Same settled counts, histograms and deferred indices; the device's S and errors come
  // from CUDA's sincos, so maxima and sums agree to rounding.
  std::int64_t deferred = 0, total = 0;
  for (const ProblemSpec& s : check_problems(seed() + 1, 1 << 18)) {
    const Problem p = make_problem(s);
    const Expected x = compute_expected(p);
    const std::vector<float> out = kernel_output(p, x, 1);
    CheckOptions o;
    o.max_deferred = p.n();
    const CheckPass host = host_check(p.gc.data(), p.gs.data(), p.theta.data(), out.data(), p.n(), s.grad_dtype, o);
    const Metrics on_gpu = gpu_compare(p, out.data(), Tier::float32_bound);
    const Metrics on_host = host_compare(p, out.data(), Tier::float32_bound);
    expect_same_metrics(on_host, on_gpu, s.name());
    if (::testing::Test::HasFailure()) return;
    deferred += host.deferred_total;
    total += p.n();
  }
  // The point of the pass: the device settles most elements (some sets are mostly special:
  // signed zeros, non-finite values, the cancellation the double enclosure cannot decide).
  EXPECT_LT(deferred, total / 4) << deferred << " of " << total << " deferred";
}

TEST(GpuCheckDevice, SweepEqualsTheCpuJudgeOnTheKernelsOwnOutputs) {
  // The GPU sweep (angles made on the device, the project's kernel, the GPU comparison) against
  // the testbed's run of the same kernel on the same angles judged by compare(): around 1, into
  // the huge angles past 2^31 (Payne-Hanek on both sides) and over Inf and the NaNs.
  Testbed bed;
  for (auto [lo, hi] : {std::pair<std::uint64_t, std::uint64_t>{0x3f800000, 0x3f900000}, {0x4f000000, 0x4f040000},
                        {0x7f7c0000, 0x7f840000}, {0x80000000, 0x80100000}}) {
    SweepOptions o;
    o.lo = lo;
    o.hi = hi;
    const SweepResult r = sweep_angles(&rope2d_backward, o);
    ASSERT_TRUE(r.complete);
    for (const SweepPair& sp : r.pairs) {
      const Problem p = sweep_problem(lo, hi, static_cast<float>(sp.grads.gc), static_cast<float>(sp.grads.gs));
      const DeviceRun run = bed.run(&rope2d_backward, p, {false, false, false});
      ASSERT_TRUE(run.integrity.ok()) << run.integrity.describe();
      Metrics want = compare(p, compute_expected(p), run.out.data(), Tier::float32_bound, max_failures_kept);
      for (ElementReport& f : want.failures) f.index += static_cast<std::int64_t>(lo);
      expect_same_metrics(want, sp.metrics, sp.grads.name);
      if (::testing::Test::HasFailure()) return;
    }
  }
}
