// The testbed's and the timer's own small kernels (device_kernels.cu): filling buffers with a
// bit pattern (poison, guard bands) or with consecutive patterns (the sweep's angles), a GPU
// spin that holds a stream busy for a set time, and
// the I/O-only kernel that moves the op's bytes with no arithmetic (the benchmark floor).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace rope2d::verify::detail {

void launch_fill32(std::uint32_t* p, std::int64_t n, std::uint32_t value, cudaStream_t s);
// p[i] = first + i (mod 2^32): the sweep's angles as consecutive bit patterns.
void launch_iota32(std::uint32_t* p, std::int64_t n, std::uint32_t first, cudaStream_t s);
void launch_spin(std::uint64_t nanoseconds, cudaStream_t s);
// Pointers must be 16-byte aligned (the benchmark's are).
void launch_io_floor(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, int grad_dtype,
                     cudaStream_t s);

}  // namespace rope2d::verify::detail
