// Kernel timing on the GPU the way SOL-ExecBench times: L2 flushed before every run, inputs
// at shifted addresses, CUDA events around the kernel alone, median of the timed runs after
// warm-up. Also the two ceilings: device-to-device copy bandwidth and an empty kernel's time.
#pragma once

#include <cstdint>
#include <functional>

struct CUstream_st;

namespace rope2d::verify {

struct TimingOptions {
  int warmup = 10;
  int runs = 50;
};

class Timer {
 public:
  Timer();
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Median milliseconds of launch(run_index, stream): the L2 is flushed before every run and
  // the GPU then idles 1 ms while the launch is queued; launch should pick its input shift
  // from run_index.
  double median_ms(const std::function<void(int, CUstream_st*)>& launch, const TimingOptions& o = {});
  double copy_bandwidth_bytes_per_s();  // bytes read + written per second, 2 GiB copies
  double empty_kernel_ms();

 private:
  CUstream_st* stream_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
};

}  // namespace rope2d::verify
