// ACCURATE: a vector path (4 elements a thread, 16-byte angle and output accesses) after a
// peeled scalar head that brings the output to a 16-byte boundary, a scalar tail, and a scalar
// path when the pointers cannot all be aligned together. Stream-ordered launches only, no
// state: graph-capturable and reentrant. Must pass.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}
__device__ inline float one(const void* gc, const void* gs, float t, int64_t i, int dt) {
  float s, c;
  sincosf(t, &s, &c);
  return ld(gs, i, dt) * c - ld(gc, i, dt) * s;
}

// Elements [0, head) and [tail, n).
__global__ void edges(const void* gc, const void* gs, const float* t, float* out, int64_t head, int64_t tail, int64_t n,
                      int dt) {
  const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int64_t i = j < head ? j : tail + (j - head);
  if (i < n && (j < head || i >= tail)) out[i] = one(gc, gs, t[i], i, dt);
}

// Elements [head, tail), 4 a thread; t + head and out + head are 16-byte aligned.
__global__ void body(const void* gc, const void* gs, const float* t, float* out, int64_t head, int64_t groups, int dt) {
  const int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (g >= groups) return;
  const int64_t i = head + 4 * g;
  const float4 a = *reinterpret_cast<const float4*>(t + i);
  *reinterpret_cast<float4*>(out + i) =
      make_float4(one(gc, gs, a.x, i, dt), one(gc, gs, a.y, i + 1, dt), one(gc, gs, a.z, i + 2, dt), one(gc, gs, a.w, i + 3, dt));
}

extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n < 0 || dt < 0 || dt > 2) return cudaErrorInvalidValue;
  if (n == 0) return 0;
  const uintptr_t o = reinterpret_cast<uintptr_t>(out), a = reinterpret_cast<uintptr_t>(t);
  int64_t head = static_cast<int64_t>((16 - o % 16) % 16 / 4);
  if (head > n) head = n;
  const bool together = (a - o) % 16 == 0;
  const int64_t groups = together ? (n - head) / 4 : 0;
  const int64_t tail = head + 4 * groups;
  if (groups > 0) {
    body<<<(unsigned)((groups + 255) / 256), 256, 0, st>>>(gc, gs, t, out, head, groups, dt);
    if (cudaError_t e = cudaGetLastError()) return e;
  }
  const int64_t scalar = head + (n - tail);
  if (scalar > 0)  // an empty grid is an invalid launch
    edges<<<(unsigned)((scalar + 255) / 256), 256, 0, st>>>(gc, gs, t, out, together ? head : 0, together ? tail : 0, n, dt);
  return cudaGetLastError();
}
