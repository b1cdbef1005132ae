// Loading grads of each element type as float32 (exact widening), and streaming memory access;
// the choice of element type from the ABI's grad_dtype.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "rope2d/rope2d_backward.h"

namespace rope2d::cuda {

__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(float x) { return x; }

// A vector of B bytes loaded once from a B-aligned address (streaming: evict first).
template <int B>
struct Bytes;
template <>
struct Bytes<4> {
  std::uint32_t v[1];
};
template <>
struct Bytes<8> {
  uint2 v[1];
};
template <>
struct Bytes<16> {
  uint4 v[1];
};
template <>
struct Bytes<32> {
  uint4 v[2];
};
template <>
struct Bytes<64> {
  uint4 v[4];
};

template <int B, bool Streaming = true>
__device__ __forceinline__ Bytes<B> load_stream(const void* p) {
  Bytes<B> r;
  using V = std::remove_reference_t<decltype(r.v[0])>;
  constexpr int k = sizeof(r.v) / sizeof(V);
#pragma unroll
  for (int i = 0; i < k; ++i) r.v[i] = Streaming ? __ldcs(static_cast<const V*>(p) + i) : static_cast<const V*>(p)[i];
  return r;
}

// V consecutive values of type T from a (V * sizeof(T))-aligned address, widened to float.
template <class T, int V, bool Streaming = true>
__device__ __forceinline__ void load_as_float(const T* p, float out[V]) {
  const Bytes<V * sizeof(T)> raw = load_stream<V * sizeof(T), Streaming>(p);
  const T* x = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int i = 0; i < V; ++i) out[i] = to_float(x[i]);
}

// V floats stored to a (4V)-aligned address, streaming (evict-first) unless told otherwise.
template <int V, bool Streaming = true>
__device__ __forceinline__ void store_stream(float* p, const float r[V]) {
  if constexpr (V == 2) {
    const float2 v = make_float2(r[0], r[1]);
    if (Streaming) __stcs(reinterpret_cast<float2*>(p), v);
    else *reinterpret_cast<float2*>(p) = v;
  } else {
#pragma unroll
    for (int i = 0; i < V; i += 4) {
      const float4 v = make_float4(r[i], r[i + 1], r[i + 2], r[i + 3]);
      if (Streaming) __stcs(reinterpret_cast<float4*>(p + i), v);
      else *reinterpret_cast<float4*>(p + i) = v;
    }
  }
}

// The backward of one element. sincosf is CUDA's accurate one (2 ulp over the whole range;
// this code is never built with fast math), and the sum is one FMA after one product; both
// orders fit the float32-bound tier's bound (reference/FLOAT32_BOUND.md).
__device__ __forceinline__ float backward_sc(float gc, float gs, float s, float c) { return fmaf(gs, c, -(gc * s)); }

__device__ __forceinline__ float backward(float gc, float gs, float t) {
  float s, c;
  sincosf(t, &s, &c);
  return backward_sc(gc, gs, s, c);
}

// Hardware approximations: accurate to ~2^-21 only on [-pi, pi]. Timing experiments only.
__device__ __forceinline__ float backward_approx(float gc, float gs, float t) {
  return fmaf(gs, __cosf(t), -(gc * __sinf(t)));
}

// A type carried as a value, so that a generic lambda can receive it.
template <class T>
struct TypeTag {
  using type = T;
};

// Returns launch(TypeTag<T>{}) with T the grad element type that grad_dtype (ROPE2D_GRAD_*)
// names; cudaErrorInvalidValue for any other value.
template <class Launch>
int with_grad_type(int grad_dtype, Launch&& launch) {
  switch (grad_dtype) {
    case ROPE2D_GRAD_BF16: return launch(TypeTag<__nv_bfloat16>{});
    case ROPE2D_GRAD_FP16: return launch(TypeTag<__half>{});
    case ROPE2D_GRAD_FP32: return launch(TypeTag<float>{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace rope2d::cuda
