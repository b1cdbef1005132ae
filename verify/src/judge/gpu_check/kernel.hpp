// The device pass of the GPU comparison (judge/gpu_check/kernel.cu), behind a plain launcher so the
// host side (judge/gpu_check/device.cpp) needs no CUDA compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "rope2d/verify/judge/gpu_check_types.hpp"

namespace rope2d::verify::detail {

struct CheckLaunch {
  DeviceArrays in;
  unsigned gate_bit;              // 1 << tier index
  std::int64_t index_base;
  CheckPartial* partials;         // one per block
  CheckRecord* failures;          // capacity max_failures
  std::int64_t max_failures;
  DeferredElement* deferred;      // capacity max_deferred
  std::int64_t max_deferred;
  unsigned long long* counters;   // [0] failures seen, [1] deferred seen (zeroed by the launcher),
                                  // [2] the canary's faults (judge/gpu_check/element.hpp; 0 when sound)
};

// Blocks the pass of n elements uses (fixed by n, so the totals are reproducible).
int check_blocks(std::int64_t n);
inline constexpr int check_threads = 256;

void launch_check(const CheckLaunch& a, cudaStream_t s);

}  // namespace rope2d::verify::detail
