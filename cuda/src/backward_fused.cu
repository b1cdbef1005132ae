// The fused backward for the real model: angles formed in the kernel from integer positions
// and the theta table, exactly as the forward forms them (one correctly rounded float32
// product, __fmul_rn so that no FMA contraction can change it), so no idx_theta is read.
#include <cstdint>

#include "grad_load.cuh"
#include "rope2d/rope2d_backward.h"
#include "rope2d/rope2d_tuning.h"

namespace rope2d::cuda {

namespace {

constexpr int threads_per_block = 256;

__device__ __forceinline__ float angle(const int32_t* positions, const float* theta, int64_t token, int k) {
  // Even k take y, odd k take x: the interleaved split of build_2d_rope.
  const int32_t p = __ldg(positions + 2 * token + (k & 1));
  return __fmul_rn(static_cast<float>(p), __ldg(theta + k));
}

// head_dim % 8 == 0. Element d and element d + head_dim/2 of a token share their angle (the
// table repeats), so thread (x, y) of a block takes angles 4x .. 4x+3 of token
// blockIdx.x * blockDim.y + y and serves the eight elements that use them: one sincos for two.
template <class T, bool Streaming>
__global__ void __launch_bounds__(threads_per_block)
fused_pairs(const T* __restrict__ gc, const T* __restrict__ gs, const int32_t* __restrict__ positions,
            const float* __restrict__ theta, float* __restrict__ out, int64_t tokens, int head_dim) {
  const int64_t token = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (token >= tokens) return;
  const int k0 = 4 * static_cast<int>(threadIdx.x);
  const int64_t lo = token * head_dim + k0, hi = lo + head_dim / 2;
  const int2 yx = __ldg(reinterpret_cast<const int2*>(positions) + token);
  const float y = static_cast<float>(yx.x), x = static_cast<float>(yx.y);
  float a_lo[4], b_lo[4], a_hi[4], b_hi[4], r_lo[4], r_hi[4];
  load_as_float<T, 4, Streaming>(gc + lo, a_lo);
  load_as_float<T, 4, Streaming>(gs + lo, b_lo);
  load_as_float<T, 4, Streaming>(gc + hi, a_hi);
  load_as_float<T, 4, Streaming>(gs + hi, b_hi);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    // Even angles take y, odd ones x: the interleaved split of build_2d_rope (k0 is even).
    const float t = __fmul_rn((k & 1) ? x : y, __ldg(theta + k0 + k));
    float sn, cs;
    sincosf(t, &sn, &cs);
    r_lo[k] = backward_sc(a_lo[k], b_lo[k], sn, cs);
    r_hi[k] = backward_sc(a_hi[k], b_hi[k], sn, cs);
  }
  store_stream<4, Streaming>(out + lo, r_lo);
  store_stream<4, Streaming>(out + hi, r_hi);
}

template <class T>
__global__ void __launch_bounds__(threads_per_block)
fused_scalar(const T* __restrict__ gc, const T* __restrict__ gs, const int32_t* __restrict__ positions,
             const float* __restrict__ theta, float* __restrict__ out, int64_t n, int head_dim) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int half = head_dim / 2;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t token = i / head_dim;
    const int k = static_cast<int>(i - token * head_dim) % half;
    out[i] = backward(to_float(gc[i]), to_float(gs[i]), angle(positions, theta, token, k));
  }
}

bool aligned(const void* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

template <class T>
int launch(const void* gc_v, const void* gs_v, const int32_t* positions, const float* theta, float* out,
           int64_t tokens, int head_dim, cudaStream_t stream, int flags) {
  const T* gc = static_cast<const T*>(gc_v);
  const T* gs = static_cast<const T*>(gs_v);
  const int64_t n = tokens * head_dim;
  const int threads_per_token = head_dim / 8;  // four angles each
  const bool vector_ok = head_dim % 8 == 0 && threads_per_token <= threads_per_block &&
                         aligned(gc, 4 * sizeof(T)) && aligned(gs, 4 * sizeof(T)) && aligned(out, 16) &&
                         aligned(positions, 8);
  if (vector_ok) {
    const dim3 block(threads_per_token, threads_per_block / threads_per_token);
    const int64_t blocks = (tokens + block.y - 1) / block.y;
    if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(blocks));
    if (flags & ROPE2D_TUNE_PLAIN_CACHE)
      fused_pairs<T, false><<<grid, block, 0, stream>>>(gc, gs, positions, theta, out, tokens, head_dim);
    else
      fused_pairs<T, true><<<grid, block, 0, stream>>>(gc, gs, positions, theta, out, tokens, head_dim);
  } else {
    const int64_t blocks = std::min<int64_t>((n + threads_per_block - 1) / threads_per_block, 65536);
    fused_scalar<T><<<static_cast<unsigned>(blocks), threads_per_block, 0, stream>>>(gc, gs, positions, theta, out, n,
                                                                                   head_dim);
  }
  return cudaGetLastError();
}

// The shipped configuration, from H200 measurements (2026-12-02, reports/bench/): ordinary
// loads and stores; on the largest workload 132.1 us against 139.9 with streaming ones (1.43x
// faster than the idx_theta path's 188.4), and within 2% either way on the others.
constexpr int default_flags = ROPE2D_TUNE_PLAIN_CACHE;

}  // namespace

}  // namespace rope2d::cuda

extern "C" int rope2d_backward_fused_config(const void* grad_cos, const void* grad_sin, const int32_t* positions,
                                            const float* theta, float* grad_idx_theta, int64_t tokens, int head_dim,
                                            int grad_dtype, cudaStream_t stream, int flags) {
  using namespace rope2d::cuda;
  if (tokens < 0 || head_dim <= 0 || head_dim % 4 != 0) return cudaErrorInvalidValue;
  if (tokens == 0) return 0;
  if (!grad_cos || !grad_sin || !positions || !theta || !grad_idx_theta) return cudaErrorInvalidValue;
  return with_grad_type(grad_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch<T>(grad_cos, grad_sin, positions, theta, grad_idx_theta, tokens, head_dim, stream, flags);
  });
}

extern "C" int rope2d_backward_fused(const void* grad_cos, const void* grad_sin, const int32_t* positions,
                                     const float* theta, float* grad_idx_theta, int64_t tokens, int head_dim,
                                     int grad_dtype, cudaStream_t stream) {
  return rope2d_backward_fused_config(grad_cos, grad_sin, positions, theta, grad_idx_theta, tokens, head_dim,
                                      grad_dtype, stream, rope2d::cuda::default_flags);
}
