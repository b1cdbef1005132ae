// The testbed's and the timer's own small kernels (device_kernels.cu): filling buffers with a
// bit pattern (poison, guard bands) or with consecutive patterns (the sweep's angles), a GPU
// spin that holds a stream busy for a set time, and
// the I/O-only kernel that moves the op's bytes with no arithmetic (the benchmark floor).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "rope2d/ref/counter_random.hpp"
#include "harness/testbed/prefill.hpp"

namespace rope2d::verify::detail {

void launch_fill32(std::uint32_t* p, std::int64_t n, std::uint32_t value, cudaStream_t s);
// An output's varied pre-fill (prefill.hpp) for the call of `seed`, and after the call every
// element still holding its NaN pre-fill turned into the poison.
void launch_prefill(std::uint32_t* p, std::int64_t n, std::uint32_t seed, PrefillStyle style, cudaStream_t s);
void launch_poison_unwritten(std::uint32_t* p, std::int64_t n, std::uint32_t seed, cudaStream_t s);
// p[i] = first + i (mod 2^32): the sweep's angles as consecutive bit patterns.
void launch_iota32(std::uint32_t* p, std::int64_t n, std::uint32_t first, cudaStream_t s);
void launch_spin(std::uint64_t nanoseconds, cudaStream_t s);
// Inputs of a counter-based set made on the GPU (ref/counter_random.hpp, the same source as the
// CPU's make_problem): grads of elements [0, n) in `enc` into gc and gs (2- or 4-byte
// elements), and, when theta is not null, the angles: the layout's fl32(pos * table[k]) when
// positions is not null, else the randn angle. gc and gs null: the angles only.
void launch_counter_fill(void* gc, void* gs, float* theta, std::int64_t n, std::uint64_t seed, ref::counter::Encoding enc,
                         const std::int32_t* positions, const float* table, std::int64_t head_dim, cudaStream_t s);
// Adds the number of bytes where a and b differ to *count (device memory).
void launch_count_differences(const void* a, const void* b, std::int64_t bytes, unsigned long long* count, cudaStream_t s);
// Elements idx[0..k) of gc, gs (es bytes each) and theta, packed into the *_out arrays.
void launch_gather(const void* gc, const void* gs, const float* theta, int es, const std::int64_t* idx, int k, void* gc_out,
                   void* gs_out, float* theta_out, cudaStream_t s);
// Pointers must be 16-byte aligned (the benchmark's are).
void launch_io_floor(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, int grad_dtype,
                     cudaStream_t s);

}  // namespace rope2d::verify::detail
