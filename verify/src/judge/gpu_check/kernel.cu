// The device pass of the GPU comparison (gpu_check.hpp): one grid-stride kernel judging each
// element with the shared per-element code (judge/gpu_check/element.hpp, CUDA's double sincos),
// reduced per block in a fixed order (integers by shared atomics, the sum of squares by warp
// shuffles, maxima by their bits: non-negative doubles order as their bit patterns).
#include <cuda_runtime.h>

#include "judge/gpu_check/element.hpp"
#include "judge/gpu_check/kernel.hpp"

namespace rope2d::verify::detail {

namespace {

__device__ __forceinline__ unsigned long long dbits(double x) { return static_cast<unsigned long long>(__double_as_longlong(x)); }
__device__ __forceinline__ double from_bits(unsigned long long b) { return __longlong_as_double(static_cast<long long>(b)); }

// What one thread gathers over its elements (the first fields named as in CheckPartial, for
// gpucheck::count_settled).
struct ThreadSums {
  unsigned long long count = 0, correctly_rounded = 0, subnormal_ieee = 0, nan = 0, hist0 = 0;
  int nonzero_ref = 0, nonzero_out = 0, norm_ref = 0, norm_out = 0;
  double sxb_max_abs = 0, sxb_max_rel = 0, sum_sq = 0, max_ulp = 0, worst_scaled = -1;
  long long worst = -1;
};

// The block's sums in shared memory (plain members: a __shared__ object has no initializers).
struct BlockSums {
  unsigned long long count, cr, sub, nan, hist0, over[tier_count], hist[20], angle[26];
  unsigned long long max_ulp, max_scaled, sxb_abs, sxb_rel;
  long long worst;
  int nz_ref, nz_out, norm_ref, norm_out, has_worst;
  double sum[check_threads / 32];
};

__device__ void clear_block(BlockSums& s, int tid) {
  if (tid == 0) {
    s.count = s.cr = s.sub = s.nan = s.hist0 = s.max_ulp = s.max_scaled = s.sxb_abs = s.sxb_rel = 0;
    s.worst = 0x7fffffffffffffffLL;
    s.nz_ref = s.nz_out = s.norm_ref = s.norm_out = s.has_worst = 0;
  }
  if (tid < tier_count) s.over[tid] = 0;
  if (tid < 20) s.hist[tid] = 0;
  if (tid < 26) s.angle[tid] = 0;
}

// Judges element i: a deferred element is queued for the CPU; a settled one is counted, and
// one over the gate tier recorded as a failure.
__device__ void judge_element(const CheckLaunch& a, long long i, ThreadSums& m, BlockSums& s) {
  const double gc = gpucheck::decode_grad(a.in.gc, i, a.in.grad_dtype), gs = gpucheck::decode_grad(a.in.gs, i, a.in.grad_dtype);
  const float t = a.in.theta[i], got = a.in.out[i];
  const gpucheck::Verdict v = gpucheck::judge(gc, gs, t, got);
  if (v.defer) {
    const unsigned long long slot = atomicAdd(&a.counters[1], 1ull);
    if (static_cast<long long>(slot) < a.max_deferred) a.deferred[slot] = {a.index_base + i, got};
    return;
  }
  gpucheck::count_settled(m, v);
  if (v.bit_equal) {
    ++m.hist0;
    return;
  }
  atomicAdd(&s.hist[core::error_bin(v.scaled)], 1ull);
  for (int k = 0; k < tier_count; ++k)
    if ((v.over >> k) & 1u) atomicAdd(&s.over[k], 1ull);
  m.sum_sq += v.scaled * v.scaled;
  m.max_ulp = fmax(m.max_ulp, v.ulps);
  atomicMax(&s.angle[core::angle_bin(t)], dbits(v.scaled));
  if (v.scaled > m.worst_scaled) {  // each thread sees its indices in increasing order
    m.worst_scaled = v.scaled;
    m.worst = i;
  }
  if (v.over & a.gate_bit) {
    const unsigned long long slot = atomicAdd(&a.counters[0], 1ull);
    if (static_cast<long long>(slot) < a.max_failures) a.failures[slot] = gpucheck::make_record(a.index_base + i, gc, gs, t, got, v);
  }
}

// Every thread's sums into the block's; ends with the block's worst index settled (ties: the
// lowest). Called by every thread of the block.
__device__ void reduce_block(const ThreadSums& m, BlockSums& s, int tid) {
  // Sum of squares: warp shuffles, then the warps in order (reproducible for a given grid).
  double sum_sq = m.sum_sq;
  for (int off = 16; off > 0; off /= 2) sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, off);
  if ((tid & 31) == 0) s.sum[tid / 32] = sum_sq;
  atomicAdd(&s.count, m.count);
  atomicAdd(&s.cr, m.correctly_rounded);
  atomicAdd(&s.sub, m.subnormal_ieee);
  atomicAdd(&s.nan, m.nan);
  atomicAdd(&s.hist0, m.hist0);
  if (m.nonzero_ref) atomicOr(&s.nz_ref, 1);
  if (m.nonzero_out) atomicOr(&s.nz_out, 1);
  if (m.norm_ref) atomicOr(&s.norm_ref, 1);
  if (m.norm_out) atomicOr(&s.norm_out, 1);
  atomicMax(&s.max_ulp, dbits(m.max_ulp));
  atomicMax(&s.sxb_abs, dbits(m.sxb_max_abs));
  atomicMax(&s.sxb_rel, dbits(m.sxb_max_rel));
  if (m.worst >= 0) {
    atomicMax(&s.max_scaled, dbits(m.worst_scaled));
    atomicOr(&s.has_worst, 1);
  }
  __syncthreads();
  if (m.worst >= 0 && dbits(m.worst_scaled) == s.max_scaled) atomicMin(&s.worst, m.worst);
  __syncthreads();
}

// The block's partial: its worst element judged again by the thread that saw it, the sums by
// thread 0.
__device__ void write_partial(const CheckLaunch& a, const ThreadSums& m, const BlockSums& s, int tid) {
  CheckPartial& p = a.partials[blockIdx.x];
  const long long worst = m.worst;
  if (worst >= 0 && worst == s.worst) {  // the block's worst element (ties: the lowest index)
    const double gc = gpucheck::decode_grad(a.in.gc, worst, a.in.grad_dtype), gs = gpucheck::decode_grad(a.in.gs, worst, a.in.grad_dtype);
    const gpucheck::Verdict v = gpucheck::judge(gc, gs, a.in.theta[worst], a.in.out[worst]);
    p.worst = gpucheck::make_record(a.index_base + worst, gc, gs, a.in.theta[worst], a.in.out[worst], v);
  }
  if (tid != 0) return;
  double total = 0;
  for (int w = 0; w < check_threads / 32; ++w) total += s.sum[w];
  p.count = static_cast<std::int64_t>(s.count);
  p.correctly_rounded = static_cast<std::int64_t>(s.cr);
  p.subnormal_ieee = static_cast<std::int64_t>(s.sub);
  p.nan = static_cast<std::int64_t>(s.nan);
  for (int k = 0; k < tier_count; ++k) p.over[k] = static_cast<std::int64_t>(s.over[k]);
  for (int k = 0; k < 20; ++k) p.histogram[k] = static_cast<std::int64_t>(s.hist[k]);
  p.histogram[0] += static_cast<std::int64_t>(s.hist0);
  for (int k = 0; k < 26; ++k) p.max_by_angle[k] = from_bits(s.angle[k]);
  p.sum_sq = total;
  p.max_scaled = from_bits(s.max_scaled);
  p.max_ulp = from_bits(s.max_ulp);
  p.nonzero_ref = s.nz_ref;
  p.nonzero_out = s.nz_out;
  p.norm_ref = s.norm_ref;
  p.norm_out = s.norm_out;
  p.sxb_max_abs = from_bits(s.sxb_abs);
  p.sxb_max_rel = from_bits(s.sxb_rel);
  p.has_worst = s.has_worst;
}

__global__ void __launch_bounds__(check_threads) check_kernel(CheckLaunch a) {
  __shared__ BlockSums s;
  const int tid = threadIdx.x;
  clear_block(s, tid);
  if (blockIdx.x == 0 && tid == 0) a.counters[2] = gpucheck::canary_faults();  // read by the host first
  __syncthreads();
  ThreadSums m;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid; i < a.in.n; i += stride) judge_element(a, i, m, s);
  reduce_block(m, s, tid);
  write_partial(a, m, s, tid);
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
