// ROPE2D_HD marks a function that is compiled for the host and, under nvcc, for the device as
// well: the per-element numerics the GPU judge shares with the CPU path (one source, not a
// copy). Empty for a host compiler, so reference/ stays free of CUDA.
#pragma once

#if defined(__CUDACC__)
#define ROPE2D_HD __host__ __device__
#else
#define ROPE2D_HD
#endif
