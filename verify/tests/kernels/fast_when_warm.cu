// DEFECT: accurate for the first 8 calls on each (size, output address), then the fast
// __sinf/__cosf: a warm-up that "tunes" to a faster, wrong path. The judged calls of a
// verification, few per buffer, see the accurate path; a benchmark's timed calls do not.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

__global__ void k(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, bool warm) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s, c;
  if (warm) s = __sinf(t[i]), c = __cosf(t[i]);
  else sincosf(t[i], &s, &c);
  out[i] = ld(gs, i, dt) * c - ld(gc, i, dt) * s;
}
static std::map<std::pair<int64_t, const float*>, int> calls;
static std::mutex calls_mutex;
extern "C" int rope2d_backward(const void* gc, const void* gs, const float* t, float* out, int64_t n, int dt, cudaStream_t st) {
  if (n <= 0) return 0;
  bool warm;
  {
    std::lock_guard<std::mutex> lock(calls_mutex);
    warm = ++calls[{n, out}] > 8;
  }
  k<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(gc, gs, t, out, n, dt, warm);
  return cudaGetLastError();
}
