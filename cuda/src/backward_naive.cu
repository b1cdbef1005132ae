// The floor for benchmarks: one element per thread, scalar loads, CUDA's accurate sincosf.
#include <cstdint>

#include "grad_load.cuh"
#include "rope2d/rope2d_backward.h"

namespace rope2d::cuda {
namespace {

template <class T>
__global__ void naive(const T* gc, const T* gs, const float* theta, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = backward(to_float(gc[i]), to_float(gs[i]), theta[i]);
}

template <class T>
int launch(const void* gc, const void* gs, const float* theta, float* out, int64_t n, cudaStream_t stream) {
  naive<T><<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(static_cast<const T*>(gc),
                                                                      static_cast<const T*>(gs), theta, out, n);
  return cudaGetLastError();
}

}  // namespace
}  // namespace rope2d::cuda

extern "C" int rope2d_backward_naive(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                                     float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream) {
  using namespace rope2d::cuda;
  if (n < 0 || (n > 0 && (!grad_cos || !grad_sin || !idx_theta || !grad_idx_theta))) return cudaErrorInvalidValue;
  if (n == 0) return 0;
  return with_grad_type(grad_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch<T>(grad_cos, grad_sin, idx_theta, grad_idx_theta, n, stream);
  });
}
