/* rope2d_backward.h: the C ABI of the 2D RoPE backward kernel, and the submission ABI the
 * verifier loads from a kernel author's shared object.
 *
 *   grad_idx_theta[i] = -grad_cos[i] * sin(idx_theta[i]) + grad_sin[i] * cos(idx_theta[i])
 *
 * All pointers are device pointers; n is the element count (batch * seq_len * head_dim).
 * Calls launch on `stream` only: no device-wide synchronisation, no allocation, no host reads
 * of device data (so a call can be captured in a CUDA graph), and two calls on different data
 * may be in flight at once. They return 0, a cudaError_t code, or ROPE2D_ERR_UNSUPPORTED_DTYPE.
 * Any n >= 0 and any element alignment of the pointers is accepted; n == 0 writes nothing. */
#ifndef ROPE2D_BACKWARD_H
#define ROPE2D_BACKWARD_H

#include <stdint.h>

/* The header stands alone (host code built without CUDA includes it for the types and codes):
 * cudaStream_t is the runtime's own typedef where that header is present, else declared here
 * the same way. */
#if defined(__CUDACC__)
#include <cuda_runtime_api.h>
#elif defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define ROPE2D_HAVE_CUDA_RUNTIME_API 1
#endif
#endif
#if !defined(__CUDACC__) && !defined(ROPE2D_HAVE_CUDA_RUNTIME_API)
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element type of grad_cos and grad_sin. */
enum { ROPE2D_GRAD_BF16 = 0, ROPE2D_GRAD_FP16 = 1, ROPE2D_GRAD_FP32 = 2 };

/* Returned, with nothing launched, by a submission that does not implement the grad dtype it
 * was called with. Negative, so no cudaError_t (all >= 0) is mistaken for it. The verifier
 * reports such a dtype as "not supported"; declining bf16, the benchmark's dtype, fails. */
enum { ROPE2D_ERR_UNSUPPORTED_DTYPE = -1 };

/* The entry points' types, as a verifier loads them from a submission. */
typedef int (*rope2d_backward_fn)(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                                  float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream);
typedef int (*rope2d_backward_fused_fn)(const void* grad_cos, const void* grad_sin, const int32_t* positions,
                                        const float* theta, float* grad_idx_theta, int64_t tokens,
                                        int head_dim, int grad_dtype, cudaStream_t stream);

/* The benchmark's op: angles read from idx_theta (12 bytes per element with bf16 grads). */
int rope2d_backward(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                    float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream);

/* The fused op for the real model: the angle of element (token, d) is formed in the kernel as
 * the forward does, fl32(p * theta[k]) with k = d mod (head_dim/2) and p = positions[2*token]
 * (y) for even k, positions[2*token + 1] (x) for odd k; bit-identical to rope2d_backward on
 * those angles. positions holds `tokens` (y, x) pairs of int32 (|p| < 2^24), theta head_dim/2
 * floats; head_dim must be a positive multiple of 4. Reads 8 bytes per element, not 12. */
int rope2d_backward_fused(const void* grad_cos, const void* grad_sin, const int32_t* positions,
                          const float* theta, float* grad_idx_theta, int64_t tokens, int head_dim,
                          int grad_dtype, cudaStream_t stream);

/* A plain kernel, one element per thread and no vector loads: the floor benchmarks compare
 * against. Same contract as rope2d_backward. */
int rope2d_backward_naive(const void* grad_cos, const void* grad_sin, const float* idx_theta,
                          float* grad_idx_theta, int64_t n, int grad_dtype, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* ROPE2D_BACKWARD_H */
