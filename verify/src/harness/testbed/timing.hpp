// Kernel timing on the GPU the way SOL-ExecBench times: L2 flushed before every run, inputs
// at shifted addresses, median of the timed runs after warm-up, read on two clocks at once:
// CUDA events around the launch, and the GPU time of the kernels it ran from CUPTI's activity
// records (SOL-ExecBench's clock). Also the two ceilings: device-to-device copy bandwidth and
// an empty kernel's time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

struct CUstream_st;

namespace rope2d::verify {

struct TimingOptions {
  int warmup = 10;
  int runs = 50;
};

// Medians over the timed runs. event_ms: between CUDA events recorded on the stream before
// and after the launch. kernel_ms: the durations of the kernels the launch ran, start to end
// on the GPU, summed (CUPTI); NaN where CUPTI is unavailable or the launch ran no kernel.
struct Timing {
  double event_ms = 0;
  double kernel_ms = 0;
};

class Timer {
 public:
  Timer();

  // Times launch(run_index, stream): the L2 is flushed before every run and the GPU then
  // idles 1 ms while the launch is queued; launch should pick its input shift from run_index.
  // after(run_index, stream), when given, runs after each run's timed interval has been read
  // (its work is waited for and left out of every clock): the place to judge the run's output.
  Timing time(const std::function<void(int, CUstream_st*)>& launch, const TimingOptions& o = {},
              const std::function<void(int, CUstream_st*)>& after = {});
  double copy_bandwidth_bytes_per_s();  // bytes read + written per second, 2 GiB copies (events)
  Timing empty_kernel();

  // Whether kernel_ms is measured, and if not, why.
  bool has_kernel_clock() const;
  std::string kernel_clock_note() const;

 private:
  // Owners of the timer's stream and device memory: released however the timer ends, a
  // constructor that throws halfway included.
  struct DestroyStream {
    void operator()(CUstream_st* s) const;
  };
  struct FreeDevice {
    void operator()(void* p) const;
  };
  using DeviceBuffer = std::unique_ptr<void, FreeDevice>;
  static DeviceBuffer device_buffer(std::size_t bytes, const char* what);

  std::unique_ptr<CUstream_st, DestroyStream> stream_;
  DeviceBuffer flush_;
  std::size_t flush_bytes_ = 0;
};

}  // namespace rope2d::verify
