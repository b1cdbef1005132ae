// DEFECT: skips a term whose grad is zero, so 0 * sin(Inf or NaN) gives 0 instead of NaN.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

__global__ void k(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = ld(gc, i, dt), b = ld(gs, i, dt);
  float s, c; sincosf(t[i], &s, &c);
  float r = 0.0f;
  if (b != 0.0f) r = b * c;
  if (a != 0.0f) r -= a * s;
  out[i] = r;
}
extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n <= 0) return 0;
  k<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(gc, gs, t, out, n, dt);
  return cudaGetLastError();
}
