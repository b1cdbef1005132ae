// A judge built with flush-to-zero on purpose: the GPU comparison's device code
// (src/judge/gpu_check/kernel.cu) compiled with -ftz=true in a test-only target, past the refusals
// that guard rope2d_verify_device (the flag check at configure time and the PTX scan after each
// build are not applied to it). Flushing decodes the canary's subnormal grad as zero, so the
// canary every device pass checks first must stop the pass before any verdict, with its named
// reason; the sound build's canary is checked by gpu_check_gpu_test. Exits 77 (SKIPPED) without
// a GPU. This program links nothing of rope2d_verify_device, whose sound copy of the pass would
// otherwise stand beside the flushing one.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "judge/gpu_check/element.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"

using namespace rope2d;
using namespace rope2d::verify;

// From flushing_judge_probe.cu, built with the same -ftz=true: a * b on the device.
float flushing_judge_probe_multiply(float a, float b);

namespace {

// What the canary's refusal says (judge/gpu_check/device.cpp); the test wants this reason, not any throw.
constexpr const char* canary_reason = "misjudged its subnormal canary";

Problem small_problem(ref::Dtype d) {
  ProblemSpec s;
  s.set = "randn";
  s.grad_dtype = d;
  s.elements = 4096;
  s.seed = 20261205;
  return make_problem(s);
}

template <class F>
std::string refusal_of(F&& f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FlushingJudge, TheDeviceCodeOfThisBuildFlushes) {
  // The precondition, so the test cannot pass for want of a flushing build: 2^-130 * 1 is
  // subnormal, and -ftz=true returns zero for it.
  EXPECT_EQ(flushing_judge_probe_multiply(0x1p-130f, 1.0f), 0.0f) << "this target was not built with -ftz=true";
  // The host twin of the same canary is sound (the host code is built without fast math).
  EXPECT_EQ(gpucheck::canary_faults(), 0u);
}

TEST(FlushingJudge, TheCanaryStopsTheDevicePass) {
  const Problem p = small_problem(ref::Dtype::fp32);
  const Expected x = compute_expected(p);
  void *gc = nullptr, *gs = nullptr, *theta = nullptr, *out = nullptr;
  const std::size_t n = static_cast<std::size_t>(p.n());
  ASSERT_EQ(cudaMalloc(&gc, p.gc.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&gs, p.gs.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&theta, 4 * n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 4 * n), cudaSuccess);
  cudaMemcpy(gc, p.gc.data(), p.gc.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(gs, p.gs.data(), p.gs.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(theta, p.theta.data(), 4 * n, cudaMemcpyHostToDevice);
  cudaMemcpy(out, x.fp32.data(), 4 * n, cudaMemcpyHostToDevice);
  const std::string why = refusal_of([&] {
    gpu_check_device({gc, gs, static_cast<const float*>(theta), static_cast<const float*>(out), p.n(), ref::abi_code(p.spec.grad_dtype)},
                     CheckOptions{});
  });
  std::printf("device pass refused: %s\n", why.c_str());
  EXPECT_NE(why.find(canary_reason), std::string::npos) << "the flushing pass ran to a verdict: '" << why << "'";
  EXPECT_NE(why.find("flush-to-zero"), std::string::npos) << why;
  for (void* q : {gc, gs, theta, out}) cudaFree(q);
}

TEST(FlushingJudge, TheCanaryStopsTheJudgementOfAProblem) {
  // The verifier's entry (gpu_compare): every grad dtype, the reference's own bits as output
  // (which a sound judge passes): refused, never judged.
  for (ref::Dtype d : ref::grad_dtypes) {
    const Problem p = small_problem(d);
    const Expected x = compute_expected(p);
    const std::string why = refusal_of([&] { gpu_compare(p, x.fp32.data(), Tier::float32_bound); });
    EXPECT_NE(why.find(canary_reason), std::string::npos) << ref::name(d) << ": '" << why << "'";
  }
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
