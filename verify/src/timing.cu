// Kernel timing with CUDA events, L2 flushes between runs.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope2d/verify/timing.hpp"

namespace rope2d::verify {

namespace detail {
void launch_spin(std::uint64_t nanoseconds, cudaStream_t s);
}  // namespace detail

namespace {

// Time the GPU spends idle-waiting before each timed launch, so the launch is queued before
// the GPU reaches it and the events time the kernel, not the host (bench_torch.py does the
// same for the PyTorch peers, whose host side is slower).
constexpr std::uint64_t lead_ns = 1'000'000;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void empty_kernel() {}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Timer::Timer() {
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  flush_bytes_ = std::max<std::size_t>(4 * static_cast<std::size_t>(l2), 256u << 20);  // well past the L2
  check(cudaMalloc(&flush_, flush_bytes_), "flush buffer");
}

Timer::~Timer() {
  cudaFree(flush_);
  cudaStreamDestroy(stream_);
}

double Timer::median_ms(const std::function<void(int, CUstream_st*)>& launch, const TimingOptions& o) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<double> times;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    check(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_), "L2 flush");
    detail::launch_spin(lead_ns, stream_);
    check(cudaEventRecord(a, stream_), "event");
    launch(i, stream_);
    check(cudaEventRecord(b, stream_), "event");
    check(cudaEventSynchronize(b), "sync");
    check(cudaGetLastError(), "launch");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (i >= o.warmup) times.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(times);
}

double Timer::copy_bandwidth_bytes_per_s() {
  const std::size_t bytes = std::size_t{2} << 30;
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "copy src");
  check(cudaMalloc(&dst, bytes), "copy dst");
  check(cudaMemsetAsync(src, 1, bytes, stream_), "memset");
  const double ms = median_ms([&](int, CUstream_st* s) { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s); },
                              {3, 20});
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * bytes / (ms * 1e-3);
}

double Timer::empty_kernel_ms() {
  return median_ms([](int, CUstream_st* s) { empty_kernel<<<1, 32, 0, s>>>(); }, {10, 100});
}

}  // namespace rope2d::verify
