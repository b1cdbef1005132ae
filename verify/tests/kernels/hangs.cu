// DEFECT: never returns (spins forever).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include "rope2d/rope2d_backward.h"
__device__ inline float ld(const void* p, int64_t i, int dt) {
  return dt == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
       : dt == 1 ? __half2float(static_cast<const __half*>(p)[i]) : static_cast<const float*>(p)[i];
}

__global__ void k(volatile int* flag) { while (*flag == 0) {} }
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t n, int, cudaStream_t st) {
  static int* flag = nullptr;
  if (!flag) { cudaMalloc(&flag, 4); cudaMemset(flag, 0, 4); }
  k<<<1, 1, 0, st>>>(flag);
  return cudaGetLastError();
}
