// The angle sweep on the GPU (sweep.hpp): each chunk's angles made on the device as
// consecutive bit patterns, the grads filled, the output pre-filled with varied NaNs (those
// left unwritten poisoned after the call), the kernel called through
// the submission ABI on its own stream, then the GPU comparison; only its summaries, failures
// and deferred elements come back.
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include <bit>
#include <stdexcept>
#include <string>

#include "harness/remote_kernel.hpp"
#include "harness/testbed/buffers.hpp"
#include "harness/testbed/device_kernels.hpp"
#include "rope2d/rope2d_backward.h"
#include "products/sweep/sweep.hpp"

namespace rope2d::verify {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("sweep: ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// 2^26 angles a chunk (sweep_chunk_patterns): 1 GiB of device buffers, and the kernel and the
// check run for tens of milliseconds, long against the per-chunk copies and launches.
constexpr std::int64_t chunk_patterns = sweep_chunk_patterns;

struct Buffers {
  detail::Buffer mem[4]{{.handed = true}, {.handed = true}, {.handed = true}, {.handed = true}};  // harness/testbed/buffers.hpp
  std::uint32_t* p[4] = {};  // gc, gs, theta, out
  cudaStream_t stream = nullptr;
  Buffers() {
    for (int k = 0; k < 4; ++k) mem[k].allocate(4 * chunk_patterns), p[k] = reinterpret_cast<std::uint32_t*>(mem[k].base);
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Buffers() {
    if (stream) cudaStreamDestroy(stream);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

}  // namespace

SweepResult sweep_angles(BackwardFn fn, const SweepOptions& o, const SweepProgress& progress) {
  Buffers b;
  std::uint32_t fill_seed = 0;  // the output's pre-fill, one per call (prefill.hpp)
  const auto chunk = [&](std::uint64_t first, std::int64_t n, float gc, float gs, const CheckOptions& co) {
    detail::launch_fill32(b.p[0], n, std::bit_cast<std::uint32_t>(gc), b.stream);
    detail::launch_fill32(b.p[1], n, std::bit_cast<std::uint32_t>(gs), b.stream);
    detail::launch_iota32(b.p[2], n, static_cast<std::uint32_t>(first), b.stream);
    const std::uint32_t seed = ++fill_seed;
    detail::launch_prefill(b.p[3], n, seed, PrefillStyle::nan, b.stream);
    const float* theta = reinterpret_cast<const float*>(b.p[2]);
    float* out = reinterpret_cast<float*>(b.p[3]);
    const int rc = fn(b.p[0], b.p[1], theta, out, n, ROPE2D_GRAD_FP32, b.stream);
    if (rc != 0) throw std::runtime_error(fmt::format("sweep: the kernel returned {} at patterns from {:#x}", rc, first));
    detail::launch_poison_unwritten(b.p[3], n, seed, b.stream);  // what the comparison counts as unwritten
    check(cudaStreamSynchronize(b.stream), "kernel");
    // A boxed kernel (harness/remote_kernel.hpp): the call's end as the judge saw it, a host
    // killed at the call time limit included; a host that is gone runs no more chunks.
    if (const std::string why = harness::settle_remote_call(nullptr); !why.empty())
      throw std::runtime_error(fmt::format("sweep: the kernel at patterns from {:#x}: {}", first, why));
    CheckOptions c = co;
    c.index_base = static_cast<std::int64_t>(first);
    return gpu_check_device({b.p[0], b.p[1], theta, out, n, ROPE2D_GRAD_FP32}, c, b.stream);
  };
  SweepResult r = run_sweep(o, chunk, chunk_patterns, progress);
  r.backend = "gpu";
  return r;
}

}  // namespace rope2d::verify
