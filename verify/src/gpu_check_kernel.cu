// The device pass of the GPU comparison (gpu_check.hpp): one grid-stride kernel judging each
// element with the shared per-element code (gpu_check_element.hpp, CUDA's double sincos),
// reduced per block in a fixed order (integers by shared atomics, the sum of squares by warp
// shuffles, maxima by their bits: non-negative doubles order as their bit patterns).
#include <cuda_runtime.h>

#include "gpu_check_element.hpp"
#include "gpu_check_kernel.hpp"

namespace rope2d::verify::detail {

namespace {

__device__ __forceinline__ unsigned long long dbits(double x) { return static_cast<unsigned long long>(__double_as_longlong(x)); }
__device__ __forceinline__ double from_bits(unsigned long long b) { return __longlong_as_double(static_cast<long long>(b)); }

__global__ void __launch_bounds__(check_threads) check_kernel(CheckLaunch a) {
  __shared__ unsigned long long s_count, s_cr, s_sub, s_nan, s_hist0, s_over[tier_count], s_hist[20], s_angle[26];
  __shared__ unsigned long long s_max_ulp, s_max_scaled, s_sxb_abs, s_sxb_rel;
  __shared__ long long s_worst;
  __shared__ int s_nz_ref, s_nz_out, s_norm_ref, s_norm_out, s_has_worst;
  __shared__ double s_sum[check_threads / 32];
  const int tid = threadIdx.x;
  if (tid == 0) {
    s_count = s_cr = s_sub = s_nan = s_hist0 = s_max_ulp = s_max_scaled = s_sxb_abs = s_sxb_rel = 0;
    s_worst = 0x7fffffffffffffffLL;
    s_nz_ref = s_nz_out = s_norm_ref = s_norm_out = s_has_worst = 0;
  }
  if (tid < tier_count) s_over[tid] = 0;
  if (tid < 20) s_hist[tid] = 0;
  if (tid < 26) s_angle[tid] = 0;
  if (blockIdx.x == 0 && tid == 0) a.counters[2] = gpucheck::canary_faults();  // read by the host first
  __syncthreads();

  unsigned long long count = 0, cr = 0, sub = 0, nan = 0, hist0 = 0;
  int nz_ref = 0, nz_out = 0, norm_ref = 0, norm_out = 0;
  double sum_sq = 0, max_ulp = 0, worst_scaled = -1, sxb_abs = 0, sxb_rel = 0;
  long long worst = -1;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid; i < a.in.n; i += stride) {
    const double gc = gpucheck::decode_grad(a.in.gc, i, a.in.grad_dtype), gs = gpucheck::decode_grad(a.in.gs, i, a.in.grad_dtype);
    const float t = a.in.theta[i], got = a.in.out[i];
    const gpucheck::Verdict v = gpucheck::judge(gc, gs, t, got);
    if (v.defer) {
      const unsigned long long slot = atomicAdd(&a.counters[1], 1ull);
      if (static_cast<long long>(slot) < a.max_deferred) a.deferred[slot] = {a.index_base + i, got};
      continue;
    }
    ++count;
    cr += v.correctly_rounded;
    sub += v.subnormal_ieee;
    nan += v.nan;
    nz_ref |= v.nonzero_ref;
    nz_out |= v.nonzero_out;
    norm_ref |= v.norm_ref;
    norm_out |= v.norm_out;
    sxb_abs = fmax(sxb_abs, static_cast<double>(v.sxb.abs));
    sxb_rel = fmax(sxb_rel, static_cast<double>(v.sxb.rel));
    if (v.bit_equal) {
      ++hist0;
      continue;
    }
    atomicAdd(&s_hist[core::error_bin(v.scaled)], 1ull);
    for (int k = 0; k < tier_count; ++k)
      if ((v.over >> k) & 1u) atomicAdd(&s_over[k], 1ull);
    sum_sq += v.scaled * v.scaled;
    max_ulp = fmax(max_ulp, v.ulps);
    atomicMax(&s_angle[core::angle_bin(t)], dbits(v.scaled));
    if (v.scaled > worst_scaled) {  // each thread sees its indices in increasing order
      worst_scaled = v.scaled;
      worst = i;
    }
    if (v.over & a.gate_bit) {
      const unsigned long long slot = atomicAdd(&a.counters[0], 1ull);
      if (static_cast<long long>(slot) < a.max_failures) a.failures[slot] = gpucheck::make_record(a.index_base + i, gc, gs, t, got, v);
    }
  }

  // Sum of squares: warp shuffles, then the warps in order (reproducible for a given grid).
  for (int off = 16; off > 0; off /= 2) sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, off);
  if ((tid & 31) == 0) s_sum[tid / 32] = sum_sq;
  atomicAdd(&s_count, count);
  atomicAdd(&s_cr, cr);
  atomicAdd(&s_sub, sub);
  atomicAdd(&s_nan, nan);
  atomicAdd(&s_hist0, hist0);
  if (nz_ref) atomicOr(&s_nz_ref, 1);
  if (nz_out) atomicOr(&s_nz_out, 1);
  if (norm_ref) atomicOr(&s_norm_ref, 1);
  if (norm_out) atomicOr(&s_norm_out, 1);
  atomicMax(&s_max_ulp, dbits(max_ulp));
  atomicMax(&s_sxb_abs, dbits(sxb_abs));
  atomicMax(&s_sxb_rel, dbits(sxb_rel));
  if (worst >= 0) {
    atomicMax(&s_max_scaled, dbits(worst_scaled));
    atomicOr(&s_has_worst, 1);
  }
  __syncthreads();
  if (worst >= 0 && dbits(worst_scaled) == s_max_scaled) atomicMin(&s_worst, worst);
  __syncthreads();

  CheckPartial& p = a.partials[blockIdx.x];
  if (worst >= 0 && worst == s_worst) {  // the block's worst element (ties: the lowest index)
    const double gc = gpucheck::decode_grad(a.in.gc, worst, a.in.grad_dtype), gs = gpucheck::decode_grad(a.in.gs, worst, a.in.grad_dtype);
    const gpucheck::Verdict v = gpucheck::judge(gc, gs, a.in.theta[worst], a.in.out[worst]);
    p.worst = gpucheck::make_record(a.index_base + worst, gc, gs, a.in.theta[worst], a.in.out[worst], v);
  }
  if (tid == 0) {
    double total = 0;
    for (int w = 0; w < check_threads / 32; ++w) total += s_sum[w];
    p.count = static_cast<std::int64_t>(s_count);
    p.correctly_rounded = static_cast<std::int64_t>(s_cr);
    p.subnormal_ieee = static_cast<std::int64_t>(s_sub);
    p.nan = static_cast<std::int64_t>(s_nan);
    for (int k = 0; k < tier_count; ++k) p.over[k] = static_cast<std::int64_t>(s_over[k]);
    for (int k = 0; k < 20; ++k) p.histogram[k] = static_cast<std::int64_t>(s_hist[k]);
    p.histogram[0] += static_cast<std::int64_t>(s_hist0);
    for (int k = 0; k < 26; ++k) p.max_by_angle[k] = from_bits(s_angle[k]);
    p.sum_sq = total;
    p.max_scaled = from_bits(s_max_scaled);
    p.max_ulp = from_bits(s_max_ulp);
    p.nonzero_ref = s_nz_ref;
    p.nonzero_out = s_nz_out;
    p.norm_ref = s_norm_ref;
    p.norm_out = s_norm_out;
    p.sxb_max_abs = from_bits(s_sxb_abs);
    p.sxb_max_rel = from_bits(s_sxb_rel);
    p.has_worst = s_has_worst;
  }
}

}  // namespace

int check_blocks(std::int64_t n) {
  const std::int64_t per_block = std::int64_t{check_threads} * 8;
  const std::int64_t b = (n + per_block - 1) / per_block;
  return static_cast<int>(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

void launch_check(const CheckLaunch& a, cudaStream_t s) {
  cudaMemsetAsync(a.counters, 0, 3 * sizeof(unsigned long long), s);
  check_kernel<<<check_blocks(a.in.n), check_threads, 0, s>>>(a);
}

}  // namespace rope2d::verify::detail
