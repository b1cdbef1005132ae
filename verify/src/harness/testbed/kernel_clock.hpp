// GPU kernel durations from CUPTI's activity records, the clock SOL-ExecBench times with: each
// kernel's start and end stamped on the GPU, so launch latency and event overhead are left out.
// CUPTI is loaded at run time; where it is absent or refuses, available() is false and
// reason() says why, and the timer keeps its CUDA events alone.
#pragma once

#include <string>
#include <vector>

#include "harness/testbed/kernel_records.hpp"

namespace rope2d::verify::detail {

class KernelClock {
 public:
  // CUPTI takes one set of buffer callbacks per process: one clock, made on first use.
  static KernelClock& instance();

  bool available() const { return available_; }
  const std::string& reason() const { return reason_; }

  // The kernels that ended since the last call, in order of their start. Call it once the
  // stream is synchronised; it forces CUPTI to hand over its partly filled buffers.
  std::vector<KernelRecord> take();

 private:
  KernelClock();
  bool available_ = false;
  std::string reason_;
};

}  // namespace rope2d::verify::detail
