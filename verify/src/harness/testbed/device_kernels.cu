// Device helpers of the testbed: filling with a pattern, and a one-block spin that holds a
// stream for a while so that a kernel ignoring the stream runs too early and is caught; and
// the benchmark's I/O floor.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "rope2d/rope2d_backward.h"
#include "harness/testbed/prefill.hpp"
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify::detail {

__global__ void fill32(std::uint32_t* p, std::int64_t n, std::uint32_t value) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = value;
}

__global__ void prefill(std::uint32_t* p, std::int64_t n, std::uint32_t seed, PrefillStyle style) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = prefill_bits(static_cast<std::uint64_t>(i), seed, style);
}

__global__ void poison_unwritten(std::uint32_t* p, std::int64_t n, std::uint32_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (p[i] == prefill_bits(static_cast<std::uint64_t>(i), seed)) p[i] = poison_bits;
}

__global__ void iota32(std::uint32_t* p, std::int64_t n, std::uint32_t first) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = first + static_cast<std::uint32_t>(i);
}

__global__ void spin(std::uint64_t nanoseconds) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

void launch_fill32(std::uint32_t* p, std::int64_t n, std::uint32_t value, cudaStream_t s) {
  if (n > 0) fill32<<<1024, 256, 0, s>>>(p, n, value);
}

void launch_prefill(std::uint32_t* p, std::int64_t n, std::uint32_t seed, PrefillStyle style, cudaStream_t s) {
  if (n > 0) prefill<<<1024, 256, 0, s>>>(p, n, seed, style);
}

void launch_poison_unwritten(std::uint32_t* p, std::int64_t n, std::uint32_t seed, cudaStream_t s) {
  if (n > 0) poison_unwritten<<<1024, 256, 0, s>>>(p, n, seed);
}

void launch_iota32(std::uint32_t* p, std::int64_t n, std::uint32_t first, cudaStream_t s) {
  if (n > 0) iota32<<<1024, 256, 0, s>>>(p, n, first);
}

void launch_spin(std::uint64_t nanoseconds, cudaStream_t s) { spin<<<1, 1, 0, s>>>(nanoseconds); }

__global__ void counter_fill(void* gc, void* gs, float* theta, std::int64_t n, std::uint64_t seed, ref::counter::Encoding enc,
                             const std::int32_t* positions, const float* table, std::int64_t head_dim) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (gc) {
      std::uint32_t a, b;
      ref::counter::normal_grads(seed, static_cast<std::uint64_t>(i), enc, a, b);
      if (enc.width == 16) {
        static_cast<std::uint16_t*>(gc)[i] = static_cast<std::uint16_t>(a);
        static_cast<std::uint16_t*>(gs)[i] = static_cast<std::uint16_t>(b);
      } else {
        static_cast<std::uint32_t*>(gc)[i] = a;
        static_cast<std::uint32_t*>(gs)[i] = b;
      }
    }
    if (theta)
      theta[i] = positions ? ref::counter::layout_angle(positions, table, i, head_dim)
                           : ref::counter::normal_angle(seed, static_cast<std::uint64_t>(i));
  }
}

__global__ void count_differences(const unsigned char* a, const unsigned char* b, std::int64_t bytes, unsigned long long* count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride) mine += a[i] != b[i];
  if (mine) atomicAdd(count, mine);
}

__global__ void gather(const unsigned char* gc, const unsigned char* gs, const float* theta, int es, const std::int64_t* idx,
                       int k, unsigned char* gc_out, unsigned char* gs_out, float* theta_out) {
  const int j = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= k) return;
  const std::int64_t i = idx[j];
  for (int b = 0; b < es; ++b) {
    gc_out[j * es + b] = gc[i * es + b];
    gs_out[j * es + b] = gs[i * es + b];
  }
  theta_out[j] = theta[i];
}

void launch_count_differences(const void* a, const void* b, std::int64_t bytes, unsigned long long* count, cudaStream_t s) {
  if (bytes <= 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((bytes + 255) / 256, 132 * 16);
  count_differences<<<static_cast<unsigned>(blocks), 256, 0, s>>>(static_cast<const unsigned char*>(a),
                                                                 static_cast<const unsigned char*>(b), bytes, count);
}

void launch_gather(const void* gc, const void* gs, const float* theta, int es, const std::int64_t* idx, int k, void* gc_out,
                   void* gs_out, float* theta_out, cudaStream_t s) {
  if (k <= 0) return;
  gather<<<static_cast<unsigned>((k + 127) / 128), 128, 0, s>>>(static_cast<const unsigned char*>(gc), static_cast<const unsigned char*>(gs),
                                                               theta, es, idx, k, static_cast<unsigned char*>(gc_out),
                                                               static_cast<unsigned char*>(gs_out), theta_out);
}

void launch_counter_fill(void* gc, void* gs, float* theta, std::int64_t n, std::uint64_t seed, ref::counter::Encoding enc,
                         const std::int32_t* positions, const float* table, std::int64_t head_dim, cudaStream_t s) {
  if (n <= 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((n + 255) / 256, 132 * 32);
  counter_fill<<<static_cast<unsigned>(blocks), 256, 0, s>>>(gc, gs, theta, n, seed, enc, positions, table, head_dim);
}

}  // namespace rope2d::verify::detail

// The I/O floor of the benchmark: the op's loads and store (4 elements a thread, 16-byte
// vectors where aligned) with a sum in place of the sines and cosines.
namespace rope2d::verify::detail {

namespace {

__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ float widen(float x) { return x; }

template <class T>
struct alignas(4 * sizeof(T)) Four {
  T v[4];
};

template <class T>
__global__ void io_floor(const T* gc, const T* gs, const float* theta, float* out, std::int64_t n) {
  const std::int64_t i = 4 * (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (i + 4 <= n) {
    const Four<T> a = *reinterpret_cast<const Four<T>*>(gc + i), b = *reinterpret_cast<const Four<T>*>(gs + i);
    const float4 t = *reinterpret_cast<const float4*>(theta + i);
    *reinterpret_cast<float4*>(out + i) = make_float4(widen(a.v[0]) + widen(b.v[0]) + t.x, widen(a.v[1]) + widen(b.v[1]) + t.y,
                                                      widen(a.v[2]) + widen(b.v[2]) + t.z, widen(a.v[3]) + widen(b.v[3]) + t.w);
  } else {
    for (std::int64_t k = i; k < n; ++k) out[k] = widen(gc[k]) + widen(gs[k]) + theta[k];
  }
}

template <class T>
void launch(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, cudaStream_t s) {
  const std::int64_t threads = (n + 3) / 4;
  io_floor<T><<<static_cast<unsigned>((threads + 255) / 256), 256, 0, s>>>(static_cast<const T*>(gc),
                                                                        static_cast<const T*>(gs), theta, out, n);
}

}  // namespace

void launch_io_floor(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, int grad_dtype,
                     cudaStream_t s) {
  if (n <= 0) return;
  switch (grad_dtype) {
    case ROPE2D_GRAD_BF16: launch<__nv_bfloat16>(gc, gs, theta, out, n, s); break;
    case ROPE2D_GRAD_FP16: launch<__half>(gc, gs, theta, out, n, s); break;
    case ROPE2D_GRAD_FP32: launch<float>(gc, gs, theta, out, n, s); break;
    default: break;  // not a code of the ABI: nothing to time (callers pass ref::abi_code)
  }
}

}  // namespace rope2d::verify::detail
