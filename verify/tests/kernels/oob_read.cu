// DEFECT: loads angles four at a time and reads the last group whole, up to three floats past
// the end of idx_theta (it writes only in range): an out-of-bounds read.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

__global__ void k(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt) {
  const int64_t base = 4 * (blockIdx.x * (int64_t)blockDim.x + threadIdx.x);
  if (base >= n) return;
  float a[4];
  for (int j = 0; j < 4; ++j) a[j] = t[base + j];  // no bound check on the read
  for (int j = 0; j < 4 && base + j < n; ++j) {
    float s, c; sincosf(a[j], &s, &c); out[base + j] = ld(gs, base + j, dt) * c - ld(gc, base + j, dt) * s;
  }
}
extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n <= 0) return 0;
  k<<<(unsigned)((n + 1023) / 1024), 256, 0, st>>>(gc, gs, t, out, n, dt);
  return cudaGetLastError();
}
