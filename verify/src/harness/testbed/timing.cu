// Kernel timing with CUDA events and CUPTI kernel records, L2 flushes between runs.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/testbed/kernel_clock.hpp"
#include "harness/testbed/timing.hpp"
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify {

namespace {

// Time the GPU spends idle-waiting before each timed launch, so the launch is queued before
// the GPU reaches it and the events time the kernel, not the host (bench_torch.py does the
// same for the PyTorch peers, whose host side is slower).
constexpr std::uint64_t lead_ns = 1'000'000;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void empty() {}

// The lead spin (detail::spin in device_kernels.cu) as CUPTI names it, mangled.
constexpr std::string_view spin_symbol = "6detail4spinE";

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

void Timer::DestroyStream::operator()(CUstream_st* s) const { cudaStreamDestroy(s); }

void Timer::FreeDevice::operator()(void* p) const { cudaFree(p); }

Timer::DeviceBuffer Timer::device_buffer(std::size_t bytes, const char* what) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), what);
  return DeviceBuffer(p);
}

Timer::Timer() {
  detail::KernelClock::instance();  // CUPTI subscribes before the timer's stream exists
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  stream_.reset(s);
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  flush_bytes_ = std::max<std::size_t>(4 * static_cast<std::size_t>(l2), 256u << 20);  // well past the L2
  flush_ = device_buffer(flush_bytes_, "flush buffer");
}

bool Timer::has_kernel_clock() const { return detail::KernelClock::instance().available(); }

std::string Timer::kernel_clock_note() const {
  const detail::KernelClock& c = detail::KernelClock::instance();
  return c.available() ? "CUPTI kernel records" : "no kernel clock: " + c.reason();
}

Timing Timer::time(const std::function<void(int, CUstream_st*)>& launch, const TimingOptions& o,
                   const std::function<void(int, CUstream_st*)>& after) {
  detail::KernelClock& clock = detail::KernelClock::instance();
  struct Event {  // destroyed however time() ends (a failed check throws)
    cudaEvent_t e = nullptr;
    Event() { check(cudaEventCreate(&e), "event"); }
    ~Event() { cudaEventDestroy(e); }
  } ea, eb;
  cudaEvent_t a = ea.e, b = eb.e;
  cudaStream_t stream = stream_.get();
  check(cudaStreamSynchronize(stream), "sync");
  clock.take();  // drop what earlier work left
  std::vector<double> times, kernel_times;
  bool kernels_seen = true;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    check(cudaMemsetAsync(flush_.get(), i & 0xff, flush_bytes_, stream), "L2 flush");
    detail::launch_spin(lead_ns, stream);
    check(cudaEventRecord(a, stream), "event");
    launch(i, stream);
    check(cudaEventRecord(b, stream), "event");
    check(cudaEventSynchronize(b), "sync");
    check(cudaGetLastError(), "launch");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    const double kernel_ms = kernel_ms_after_lead(clock.take(), spin_symbol);
    if (after) {
      after(i, stream);
      check(cudaStreamSynchronize(stream), "sync");
      clock.take();  // the judging's own kernels: in no run's time
    }
    if (i < o.warmup) continue;
    times.push_back(ms);
    kernel_times.push_back(kernel_ms);
    kernels_seen = kernels_seen && !std::isnan(kernel_ms);
  }
  return {median(times), kernels_seen ? median(kernel_times) : NAN};
}

double Timer::copy_bandwidth_bytes_per_s() {
  const std::size_t bytes = std::size_t{2} << 30;
  const DeviceBuffer src = device_buffer(bytes, "copy src"), dst = device_buffer(bytes, "copy dst");
  check(cudaMemsetAsync(src.get(), 1, bytes, stream_.get()), "memset");
  const double ms =
      time([&](int, CUstream_st* s) { cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s); }, {3, 20})
          .event_ms;
  return 2.0 * bytes / (ms * 1e-3);
}

Timing Timer::empty_kernel() {
  return time([](int, CUstream_st* s) { empty<<<1, 32, 0, s>>>(); }, {10, 100});
}

}  // namespace rope2d::verify
