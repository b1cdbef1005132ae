/* rope2d_tuning.h: the knobs of the two kernels, for benchmarks that compare configurations.
 * rope2d_backward() and rope2d_backward_fused() run the measured best; these run any.
 *   elems_per_thread: 2, 4, 8 or 16
 *   threads_per_block: 128, 256 or 512
 *   flags: ROPE2D_TUNE_APPROX uses __sinf/__cosf, which is NOT accurate beyond a few radians:
 *          it exists only to measure the arithmetic's share of the time.
 *          ROPE2D_TUNE_PLAIN_CACHE uses ordinary loads and stores instead of streaming
 *          (evict-first) ones. The only flag of the fused entry point. */
#ifndef ROPE2D_TUNING_H
#define ROPE2D_TUNING_H

#include "rope2d/rope2d_backward.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { ROPE2D_TUNE_APPROX = 1, ROPE2D_TUNE_PLAIN_CACHE = 2 };

int rope2d_backward_config(const void* grad_cos, const void* grad_sin, const float* idx_theta, float* grad_idx_theta,
                           int64_t n, int grad_dtype, cudaStream_t stream, int elems_per_thread, int threads_per_block,
                           int flags);

int rope2d_backward_fused_config(const void* grad_cos, const void* grad_sin, const int32_t* positions,
                                 const float* theta, float* grad_idx_theta, int64_t tokens, int head_dim,
                                 int grad_dtype, cudaStream_t stream, int flags);

#ifdef __cplusplus
}
#endif

#endif /* ROPE2D_TUNING_H */
