// The optimized backward: eight elements per thread with 16-byte streaming loads and stores
// where every pointer allows it, a scalar path for the rest (tails, misaligned views).
#include <cstdint>

#include "grad_load.cuh"
#include "rope2d/rope2d_backward.h"

namespace rope2d::cuda {

namespace {

constexpr int threads_per_block = 256;
constexpr int vec = 8;

template <class T>
__global__ void __launch_bounds__(threads_per_block)
backward_vec8(const T* __restrict__ gc, const T* __restrict__ gs, const float* __restrict__ theta,
              float* __restrict__ out, int64_t groups) {
  const int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= groups) return;
  const int64_t i = g * vec;
  float a[vec], b[vec];
  load8(gc + i, a);
  load8(gs + i, b);
  const float4 t0 = __ldcs(reinterpret_cast<const float4*>(theta + i));
  const float4 t1 = __ldcs(reinterpret_cast<const float4*>(theta + i) + 1);
  const float t[vec] = {t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z, t1.w};
  float r[vec];
#pragma unroll
  for (int k = 0; k < vec; ++k) r[k] = backward(a[k], b[k], t[k]);
  __stcs(reinterpret_cast<float4*>(out + i), make_float4(r[0], r[1], r[2], r[3]));
  __stcs(reinterpret_cast<float4*>(out + i) + 1, make_float4(r[4], r[5], r[6], r[7]));
}

template <class T>
__global__ void __launch_bounds__(threads_per_block)
backward_scalar(const T* __restrict__ gc, const T* __restrict__ gs, const float* __restrict__ theta,
                float* __restrict__ out, int64_t begin, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = begin + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = backward(to_float(gc[i]), to_float(gs[i]), theta[i]);
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

unsigned blocks_for(int64_t work) {
  return static_cast<unsigned>((work + threads_per_block - 1) / threads_per_block);
}

template <class T>
int launch(const void* gc_v, const void* gs_v, const float* theta, float* out, int64_t n, cudaStream_t stream) {
  const T* gc = static_cast<const T*>(gc_v);
  const T* gs = static_cast<const T*>(gs_v);
  int64_t done = 0;
  if (aligned16(gc) && aligned16(gs) && aligned16(theta) && aligned16(out)) {
    const int64_t groups = n / vec;
    if (groups > 0) {
      backward_vec8<T><<<blocks_for(groups), threads_per_block, 0, stream>>>(gc, gs, theta, out, groups);
      if (cudaError_t e = cudaGetLastError()) return e;
    }
    done = groups * vec;
  }
  if (done < n) {
    const int64_t left = n - done;
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(blocks_for(left), 65536));
    backward_scalar<T><<<blocks, threads_per_block, 0, stream>>>(gc, gs, theta, out, done, n);
    if (cudaError_t e = cudaGetLastError()) return e;
  }
  return 0;
}

}  // namespace

}  // namespace rope2d::cuda

extern "C" int rope2d_backward(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                               float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream) {
  using namespace rope2d::cuda;
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return 0;
  if (!grad_cos || !grad_sin || !idx_theta || !grad_idx_theta) return cudaErrorInvalidValue;
  switch (grad_dtype) {
    case ROPE2D_GRAD_BF16: return launch<__nv_bfloat16>(grad_cos, grad_sin, idx_theta, grad_idx_theta, n, stream);
    case ROPE2D_GRAD_FP16: return launch<__half>(grad_cos, grad_sin, idx_theta, grad_idx_theta, n, stream);
    case ROPE2D_GRAD_FP32: return launch<float>(grad_cos, grad_sin, idx_theta, grad_idx_theta, n, stream);
    default: return cudaErrorInvalidValue;
  }
}
