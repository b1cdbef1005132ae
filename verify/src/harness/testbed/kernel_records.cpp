// Reading one timed run from kernel records (kernel_records.hpp).
#include "harness/testbed/kernel_records.hpp"

#include <cmath>

namespace rope2d::verify {

double kernel_ms_after_lead(const std::vector<KernelRecord>& run, std::string_view lead) {
  int leads = 0;
  std::uint64_t lead_end = 0;
  for (const KernelRecord& r : run)
    if (r.name.find(lead) != std::string::npos) ++leads, lead_end = r.end_ns;
  if (leads != 1) return NAN;
  std::uint64_t ns = 0;
  bool any = false;
  for (const KernelRecord& r : run)
    if (r.start_ns >= lead_end && r.name.find(lead) == std::string::npos) ns += r.end_ns - r.start_ns, any = true;
  return any ? ns * 1e-6 : NAN;
}

}  // namespace rope2d::verify
