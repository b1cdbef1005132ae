// Loading grads of each element type as float32 (exact widening), and streaming memory access.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace rope2d::cuda {

__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(float x) { return x; }

// Eight consecutive grads from a 16-byte aligned address, read once (streaming, evict-first).
template <class T>
__device__ __forceinline__ void load8(const T* p, float out[8]) {
  if constexpr (sizeof(T) == 2) {
    const uint4 v = __ldcs(reinterpret_cast<const uint4*>(p));
    const T* h = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = to_float(h[i]);
  } else {
    const float4 a = __ldcs(reinterpret_cast<const float4*>(p));
    const float4 b = __ldcs(reinterpret_cast<const float4*>(p) + 1);
    out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w;
    out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
  }
}

// The backward of one element. sincosf is CUDA's accurate one (2 ulp over the whole range;
// this file is never built with fast math), and the sum is one FMA after one product; both
// orders fit the strict float32 bound (reference/FLOAT32_BOUND.md).
__device__ __forceinline__ float backward(float gc, float gs, float t) {
  float s, c;
  sincosf(t, &s, &c);
  return fmaf(gs, c, -(gc * s));
}

}  // namespace rope2d::cuda
