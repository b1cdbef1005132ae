// Device helpers of the testbed: filling with a pattern, and a one-block spin that holds a
// stream for a while so that a kernel ignoring the stream runs too early and is caught.
#include <cstdint>

namespace rope2d::verify::detail {

__global__ void fill32(std::uint32_t* p, std::int64_t n, std::uint32_t value) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = value;
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

void launch_spin(std::uint64_t nanoseconds, cudaStream_t s) { spin<<<1, 1, 0, s>>>(nanoseconds); }

}  // namespace rope2d::verify::detail
