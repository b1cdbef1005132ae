// DEFECT: not reentrant: sin and cos go through a static device scratch buffer shared by
// every call, so two calls in flight at once read each other's angles.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

constexpr int64_t scratch_n = 1 << 21;
__device__ float2 scratch[scratch_n];
__global__ void angles(const float* t, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) { float s, c; sincosf(t[i], &s, &c); scratch[i] = make_float2(s, c); }
}
__global__ void combine(const void* gc, const void* gs, float* out, int64_t n, int dt) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = ld(gs, i, dt) * scratch[i].y - ld(gc, i, dt) * scratch[i].x;
}
__global__ void direct(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) { float s, c; sincosf(t[i], &s, &c); out[i] = ld(gs, i, dt) * c - ld(gc, i, dt) * s; }
}
extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n <= 0) return 0;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  if (n > scratch_n) {
    direct<<<blocks, 256, 0, st>>>(gc, gs, t, out, n, dt);
  } else {
    angles<<<blocks, 256, 0, st>>>(t, n);
    combine<<<blocks, 256, 0, st>>>(gc, gs, out, n, dt);
  }
  return cudaGetLastError();
}
