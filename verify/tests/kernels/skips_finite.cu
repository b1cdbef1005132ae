// DEFECT: treats an output element that already holds a finite value as computed (a result
// cache kept in the output buffer) and leaves it. A testbed whose every pre-fill is a NaN sees
// every element written; an output holding an earlier call's results does not get them.
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
  if (i >= n || isfinite(out[i])) return;
  float s, c;
  sincosf(t[i], &s, &c);
  out[i] = ld(gs, i, dt) * c - ld(gc, i, dt) * s;
}
extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n <= 0) return 0;
  k<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(gc, gs, t, out, n, dt);
  return cudaGetLastError();
}
