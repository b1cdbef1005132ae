// The GPU comparison on the device against the CPU judge (compare()) on fresh inputs: every
// regime, the special cross product, every grad dtype, outputs of honest, flushing, perturbed
// and defective kernels; the reference of every settled element equal bit for bit (the
// reference's own bits as output are all settled correctly rounded); and the device pass
// equal to its host twin. Exits 77 (SKIPPED) without a GPU. ROPE2D_SEED fixes the inputs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "gpu_check_compare.hpp"
#include "rope2d/verify/device.hpp"
#include "rope2d/verify/gpu_check.hpp"

using namespace rope2d::verify;
using namespace rope2d::verify::testing;

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
  for (const ProblemSpec& s : check_problems(seed(), 1 << 16)) {
    const Problem p = make_problem(s);
    const Expected x = compute_expected(p);
    for (int kind = 0; kind < 5; ++kind) {
      const std::vector<float> out = kernel_output(p, x, kind);
      const std::string what = s.name() + " kernel " + std::to_string(kind);
      for (Subnormals mode : {Subnormals::flush_allowed, Subnormals::ieee})
        expect_same_metrics(compare(p, x, out.data(), Tier::float32_bound, 10, mode),
                            gpu_compare(p, out.data(), Tier::float32_bound, 10, mode), what);
      if (kind == 0) {
        // The reference's own bits: every element the GPU settles is correctly rounded there.
        const Metrics m = gpu_compare(p, out.data(), Tier::float32_bound);
        EXPECT_EQ(m.correctly_rounded, m.count) << what;
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(GpuCheckDevice, DevicePassEqualsItsHostTwin) {
  // Same settled counts, histograms and deferred indices; the device's S and errors come
  // from CUDA's sincos, so maxima and sums agree to rounding.
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
    EXPECT_LT(host.deferred_total, p.n() / 2) << s.name();
    if (::testing::Test::HasFailure()) return;
  }
}

int main(int argc, char** argv) {
  const DeviceInfo info = probe_device();
  if (!info.available) {
    std::printf("SKIPPED: %s\n", info.reason.c_str());
    return 77;
  }
  std::printf("device: %s, %d SMs\n", info.name.c_str(), info.sm_count);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
