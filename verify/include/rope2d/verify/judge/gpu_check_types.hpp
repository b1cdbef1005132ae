// The plain data the GPU comparison (gpu_check.hpp) copies back: element records and the
// per-block partial sums. No standard-library types, so the device code includes it as is.
#pragma once

#include <cstdint>

#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/model/tolerance_core.hpp"

namespace rope2d::verify {

// One element as copied back (a failure or the worst); gc and gs decoded exactly.
struct CheckRecord {
  std::int64_t index = 0;
  double gc = 0, gs = 0;
  float t = 0, ref = 0, got = 0;
  double scaled = 0, ulps = 0;
};

// What the device pass reduces to, per block and in total (plain data: copied as bytes).
struct CheckPartial {
  std::int64_t count = 0;              // settled elements
  std::int64_t correctly_rounded = 0;
  std::int64_t subnormal_ieee = 0;     // subnormal values took part, IEEE evaluation fits
  std::int64_t over[tier_count] = {};
  std::int64_t histogram[20] = {};
  double max_by_angle[26] = {};
  double sum_sq = 0, max_scaled = 0, max_ulp = 0;
  int nonzero_ref = 0, nonzero_out = 0;
  int norm_ref = 0, norm_out = 0;      // float32 norm not zero (core::sxb_norm_nonzero)
  double sxb_max_abs = 0, sxb_max_rel = 0;  // SOL-ExecBench's reported errors (core::sxb_errors)
  std::int64_t nan = 0;                // NaN met by NaN (SOL-ExecBench fails them)
  int has_worst = 0;                   // an element not bit-equal was settled
  CheckRecord worst;                   // the largest scaled error (ties: the lowest index)

  // Partials merged in a fixed order give a reproducible total (host only).
  void merge(const CheckPartial& o);
};

struct DeferredElement {
  std::int64_t index;
  float got;
};

// Device arrays of one pass (gc, gs in the ABI's grad dtype code).
struct DeviceArrays {
  const void* gc;
  const void* gs;
  const float* theta;
  const float* out;
  std::int64_t n;
  int grad_dtype;
};

}  // namespace rope2d::verify
