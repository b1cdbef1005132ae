// Records of GPU kernels as a kernel clock (CUPTI's activity records, in the timer) reports
// them, and how one timed run's time is read from them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rope2d::verify {

struct KernelRecord {
  std::string name;  // mangled, as CUPTI reports it
  std::uint64_t start_ns = 0, end_ns = 0;
};

// A timed run is its lead kernel (the timer's idle spin) followed by the launch under test.
// Returns the summed GPU milliseconds of the kernels that start once the lead has ended, the
// lead being the one record whose name contains `lead`; NaN unless there is exactly one lead
// and at least one kernel after it. The order of the records does not matter.
double kernel_ms_after_lead(const std::vector<KernelRecord>& run, std::string_view lead);

}  // namespace rope2d::verify
