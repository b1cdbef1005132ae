// DEFECT: writes through a wild pointer (illegal address).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

// An address far outside any allocation (the first pages may be mapped on some systems).
__global__ void k(float* out, int64_t n) {
  float* p = reinterpret_cast<float*>(0x7ff000000000ull);
  if (threadIdx.x == 0) p[n] = 1.0f;
  out[0] = 0;
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float* out, int64_t n, int, cudaStream_t st) {
  k<<<1, 32, 0, st>>>(out, n);
  return cudaGetLastError();
}
