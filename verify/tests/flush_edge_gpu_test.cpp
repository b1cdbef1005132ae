// The -ftz=true accurate kernel (tests/kernels/accurate_ftz.cu, built as a module with
// -ftz=true) on elements at flush-to-zero's edge (ref::near_smallest_normal, the generator of
// properties/flush_edge_prop.cpp): no false rejection by the CPU judge nor by the GPU judge.
// The module comes from ROPE2D_FTZ_KERNEL. Exits 77 (SKIPPED) without a GPU; ROPE2D_SEED
// fixes the inputs.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "rope2d/ref/random.hpp"
#include "rope2d/ref/regimes.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

std::uint64_t seed() {
  const char* env = std::getenv("ROPE2D_SEED");
  const std::uint64_t v = env ? std::strtoull(env, nullptr, 10)
                              : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("inputs: ROPE2D_SEED=%llu\n", static_cast<unsigned long long>(v));
  return v;
}

// The generator's parameters drawn as the property draws them.
Problem edge_problem(ref::Dtype d, std::uint64_t s, int n) {
  ref::Random rng(s);
  std::vector<ref::Element> es;
  while (static_cast<int>(es.size()) < n) {
    const int kind = static_cast<int>(rng.below(3));
    const double mant = 1 + static_cast<double>(rng.below(3 << 20)) * 0x1p-20;
    const int ulps = static_cast<int>(rng.between(-12, 12)), spread = static_cast<int>(rng.below(9));
    const double other = rng.chance(0.25) ? 0 : static_cast<double>(rng.between(-1024, 1023)) * 0x1p-10;
    const ref::Element e = ref::near_smallest_normal(d, kind, mant, ulps, spread, other, rng.chance(0.5));
    if (std::isfinite(e.t)) es.push_back(e);
  }
  return problem_of("flush_edge", d, es);
}

std::vector<float> run_ftz_kernel(const Problem& p) {
  const char* path = std::getenv("ROPE2D_FTZ_KERNEL");
  if (!path) throw std::runtime_error("ROPE2D_FTZ_KERNEL: the path of the -ftz=true accurate kernel module is not set");
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  const auto fn = reinterpret_cast<rope2d_backward_fn>(dlsym(lib, "rope2d_backward"));
  if (!fn) throw std::runtime_error("rope2d_backward not found in the module");
  const std::int64_t n = p.n();
  void *gc, *gs, *t, *out;
  cudaMalloc(&gc, p.gc.size());
  cudaMalloc(&gs, p.gs.size());
  cudaMalloc(&t, 4 * n);
  cudaMalloc(&out, 4 * n);
  cudaMemcpy(gc, p.gc.data(), p.gc.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(gs, p.gs.data(), p.gs.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(t, p.theta.data(), 4 * n, cudaMemcpyHostToDevice);
  std::vector<float> host(n, NAN);
  cudaMemcpy(out, host.data(), 4 * n, cudaMemcpyHostToDevice);  // poisoned with NaN
  const int rc = fn(gc, gs, static_cast<const float*>(t), static_cast<float*>(out), n, ref::abi_code(p.spec.grad_dtype), nullptr);
  const cudaError_t sync = cudaDeviceSynchronize();
  cudaMemcpy(host.data(), out, 4 * n, cudaMemcpyDeviceToHost);
  for (void* b : {gc, gs, t, out}) cudaFree(b);
  if (rc != 0 || sync != cudaSuccess) throw std::runtime_error("the kernel failed: " + std::to_string(rc));
  return host;
}

}  // namespace

TEST(FlushEdgeDevice, FtzAccurateKernelHasNoFalseRejection) {
  const std::uint64_t s = seed();
  for (ref::Dtype d : {ref::Dtype::fp32, ref::Dtype::bf16}) {
    const Problem p = edge_problem(d, s + static_cast<int>(d), 24000);
    const std::vector<float> out = run_ftz_kernel(p);
    const Metrics cpu = compare(p, compute_expected(p), out.data(), Tier::float32_bound, max_failures_kept);
    const Metrics gpu = gpu_compare(p, out.data(), Tier::float32_bound, max_failures_kept);
    std::printf("%s: %lld elements, %lld over the IEEE allowance (explained by flushing), %lld false rejections (CPU), %lld (GPU)\n",
                std::string(ref::name(d)).c_str(), static_cast<long long>(cpu.count), static_cast<long long>(cpu.over_ieee[0]),
                static_cast<long long>(cpu.over[0]), static_cast<long long>(gpu.over[0]));
    EXPECT_GT(cpu.over_ieee[0], 0) << "the generator no longer reaches the edge";
    EXPECT_EQ(cpu.over[0], 0) << (cpu.failures.empty() ? "" : cpu.failures[0].line("flush_edge"));
    EXPECT_EQ(gpu.over[0], 0) << (gpu.failures.empty() ? "" : gpu.failures[0].line("flush_edge"));
    EXPECT_TRUE(cpu.passes(Tier::float32_bound));
    EXPECT_TRUE(gpu.passes(Tier::float32_bound));
  }
}
