// DEFECT: the 8-wide vector path checks the alignment of grad_cos, idx_theta and out but not
// grad_sin, and loads it from the 16-byte boundary below: wrong only when grad_sin alone is offset.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

__global__ void k(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, bool vec) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const void* g = gs;
  if (vec) g = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(gs) & ~uintptr_t{15});  // "already aligned"
  float s, c; sincosf(t[i], &s, &c); out[i] = ld(g, i, dt) * c - ld(gc, i, dt) * s;
}
static bool al(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n <= 0) return 0;
  const bool vec = al(gc) && al(t) && al(out);
  k<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(gc, gs, t, out, n, dt, vec);
  return cudaGetLastError();
}
