// The optimized backward: V elements per thread with wide loads and stores where every
// pointer allows it (streaming below 2^23 elements, ordinary above), a scalar path for the
// rest (tails, misaligned views). V and the cache policy are tuning knobs (rope2d_tuning.h);
// the shipped entry point uses the measured best.
#include <algorithm>
#include <cstdint>

#include "grad_load.cuh"
#include "rope2d/rope2d_tuning.h"

namespace rope2d::cuda {

namespace {

constexpr int threads_per_block = 256;  // of the scalar path and the default vector path

template <class T, int V, bool Accurate, bool Streaming>
__global__ void __launch_bounds__(512)
backward_vec(const T* __restrict__ gc, const T* __restrict__ gs, const float* __restrict__ theta,
             float* __restrict__ out, int64_t groups) {
  const int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= groups) return;
  const int64_t i = g * V;
  float a[V], b[V], t[V], r[V];
  load_as_float<T, V, Streaming>(gc + i, a);
  load_as_float<T, V, Streaming>(gs + i, b);
  load_as_float<float, V, Streaming>(theta + i, t);
#pragma unroll
  for (int k = 0; k < V; ++k) r[k] = Accurate ? backward(a[k], b[k], t[k]) : backward_approx(a[k], b[k], t[k]);
  store_stream<V, Streaming>(out + i, r);
}

template <class T>
__global__ void __launch_bounds__(threads_per_block)
backward_scalar(const T* __restrict__ gc, const T* __restrict__ gs, const float* __restrict__ theta,
                float* __restrict__ out, int64_t begin, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = begin + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = backward(to_float(gc[i]), to_float(gs[i]), theta[i]);
}

bool aligned(const void* p, std::uintptr_t bytes) { return (reinterpret_cast<std::uintptr_t>(p) % bytes) == 0; }

unsigned blocks_for(int64_t work) { return static_cast<unsigned>((work + threads_per_block - 1) / threads_per_block); }

template <class T, int V, bool Accurate, bool Streaming>
int launch_vec(const T* gc, const T* gs, const float* theta, float* out, int64_t n, cudaStream_t stream, int tpb,
               int64_t& done) {
  // Every pointer aligned to its own vector width (grads V*sizeof(T), floats 4V, at most 16).
  constexpr std::uintptr_t ga = std::min<std::uintptr_t>(V * sizeof(T), 16), fa = std::min(4 * V, 16);
  if (!(aligned(gc, ga) && aligned(gs, ga) && aligned(theta, fa) && aligned(out, fa))) return 0;
  const int64_t groups = n / V;
  if (groups > 0) {
    const auto blocks = static_cast<unsigned>((groups + tpb - 1) / tpb);
    backward_vec<T, V, Accurate, Streaming><<<blocks, tpb, 0, stream>>>(gc, gs, theta, out, groups);
    if (cudaError_t e = cudaGetLastError()) return e;
  }
  done = groups * V;
  return 0;
}

template <class T>
int launch(const void* gc_v, const void* gs_v, const float* theta, float* out, int64_t n, cudaStream_t stream,
           int elems_per_thread, int tpb, int flags) {
  const T* gc = static_cast<const T*>(gc_v);
  const T* gs = static_cast<const T*>(gs_v);
  if (tpb != 128 && tpb != 256 && tpb != 512) return cudaErrorInvalidValue;
  const bool approx = flags & ROPE2D_TUNE_APPROX, plain = flags & ROPE2D_TUNE_PLAIN_CACHE;
  int64_t done = 0;
  int rc = 0;
  // Instantiated configurations: accurate at every width streaming, at 2, 4, 8 plain; approx at 4, 8.
  switch (elems_per_thread * 4 + (approx ? 2 : 0) + (plain ? 1 : 0)) {
    case 2 * 4: rc = launch_vec<T, 2, true, true>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 4 * 4: rc = launch_vec<T, 4, true, true>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 8 * 4: rc = launch_vec<T, 8, true, true>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 16 * 4: rc = launch_vec<T, 16, true, true>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 2 * 4 + 1: rc = launch_vec<T, 2, true, false>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 4 * 4 + 1: rc = launch_vec<T, 4, true, false>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 8 * 4 + 1: rc = launch_vec<T, 8, true, false>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 4 * 4 + 2: rc = launch_vec<T, 4, false, true>(gc, gs, theta, out, n, stream, tpb, done); break;
    case 8 * 4 + 2: rc = launch_vec<T, 8, false, true>(gc, gs, theta, out, n, stream, tpb, done); break;
    default: return cudaErrorInvalidValue;
  }
  if (rc) return rc;
  if (done < n) {
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(blocks_for(n - done), 65536));
    backward_scalar<T><<<blocks, threads_per_block, 0, stream>>>(gc, gs, theta, out, done, n);
    if (cudaError_t e = cudaGetLastError()) return e;
  }
  return 0;
}

// The shipped configuration, from H200 measurements (2026-12-02, reports/bench/):
// 4 elements per thread was fastest or tied on all 16 workloads (64x8192: 202.8 us against
// 211 for 8 and 214 for 2; __sinf/__cosf at 4 took 202.7 us, so the accurate sincosf costs no
// time); 128, 256 or 512 threads per block made no difference. Streaming (evict-first) loads
// and stores are 0.4-3% faster from 1M to 6.8M elements; ordinary ones are 3% faster at 12.6M
// (12x8192) and 7% faster at 67M (64x8192: 188.1 us against 202.4, 100.9% of the measured
// copy bandwidth). The switch lies between 6.8M and 12.6M elements.
constexpr int default_elems_per_thread = 4;
constexpr int64_t plain_cache_from = int64_t{1} << 23;  // elements

}  // namespace

}  // namespace rope2d::cuda

extern "C" int rope2d_backward_config(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                                      float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream,
                                      int elems_per_thread, int threads_per_block, int flags) {
  using namespace rope2d::cuda;
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return 0;
  if (!grad_cos || !grad_sin || !idx_theta || !grad_idx_theta) return cudaErrorInvalidValue;
  return with_grad_type(grad_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch<T>(grad_cos, grad_sin, idx_theta, grad_idx_theta, n, stream, elems_per_thread, threads_per_block, flags);
  });
}

extern "C" int rope2d_backward(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                               float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream) {
  return rope2d_backward_config(grad_cos, grad_sin, idx_theta, grad_idx_theta, n, grad_dtype, stream,
                                rope2d::cuda::default_elems_per_thread, rope2d::cuda::threads_per_block,
                                n >= rope2d::cuda::plain_cache_from ? ROPE2D_TUNE_PLAIN_CACHE : 0);
}
