// The nightly run's configuration file, read and checked in full before anything runs:
//   {"submissions": ["kernels/candidate.cu"], "grad_dtypes": ["bf16", "fp16", "fp32"],
//    "sweep": {"from": 0, "to": 16384, "budget_s": 600}}
// The sweep's range is [from, to) in float values, or "angles": "all" for every one of the 2^32
// float32 bit patterns (then from and to are refused).
// Every field is optional; unknown fields, wrong types and out-of-range numbers are bad input.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <bit>
#include <cstdint>
#include <vector>

#include "rope2d/ref/dtype.hpp"

namespace rope2d::verify {

struct NightlyConfig {
  std::vector<std::string> submissions;  // paths to .cu, .so or solution.json files, each a regular file
  std::vector<ref::Dtype> grad_dtypes{ref::Dtype::bf16, ref::Dtype::fp16, ref::Dtype::fp32};
  float sweep_from = 0.0f, sweep_to = 16384.0f;
  bool sweep_all = false;  // "angles": "all"
  double sweep_budget_s = 600;

  // The bit patterns swept, [lo, hi): from the angles, so the two never disagree.
  std::uint64_t sweep_lo() const { return sweep_all ? 0 : std::bit_cast<std::uint32_t>(sweep_from); }
  std::uint64_t sweep_hi() const { return sweep_all ? std::uint64_t{1} << 32 : std::bit_cast<std::uint32_t>(sweep_to); }
};

// The kernel name of a submission path, its file's stem ("" is this project's kernel, "rope2d"):
// the name of its report folder and its row in the nightly's summary.
std::string kernel_name(const std::string& submission);

// Empty path: the defaults. Two submissions of one kernel name, or one named as this project's
// kernel, are refused: each would overwrite the other's reports. Throws std::invalid_argument naming the file, field, expected and found.
NightlyConfig read_nightly_config(const std::string& path);

}  // namespace rope2d::verify
