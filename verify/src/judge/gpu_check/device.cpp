// The GPU comparison's host side on a CUDA machine (gpu_check.hpp): buffers for the pass,
// the launch, the copy back of the block partials, failures and deferred elements, and the
// host-vector entry that judges a Problem on the device.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "judge/gpu_check/kernel.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"

namespace rope2d::verify {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("gpu check: ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// Device buffers kept across passes of one thread (a sweep makes thousands), grown on demand.
struct Workspace {
  void* base = nullptr;
  std::size_t bytes = 0;
  ~Workspace() {
    if (base) cudaFree(base);
  }
  void* get(std::size_t need) {
    if (need > bytes) {
      if (base) cudaFree(base);
      base = nullptr;
      bytes = 0;
      check(cudaMalloc(&base, need), "cudaMalloc");
      bytes = need;
    }
    return base;
  }
};

std::size_t align_up(std::size_t x) { return (x + 255) / 256 * 256; }

[[noreturn]] void throw_canary_fault(unsigned long long faults) {
  throw std::logic_error("internal error: the GPU judge misjudged its subnormal canary (faults " + std::to_string(faults) +
                         "): it was built with flush-to-zero or fast math, and its verdicts cannot be trusted");
}

// Atomics fill the failure list in no fixed order: when it overflowed, which failures it
// holds is arbitrary. Then find by bisection a prefix of the elements whose failures fit the
// list and are at least a quarter of it (records only; the summaries stay): the list then
// holds every failure below that index, the lowest ones. `a` is the pass's launch.
void keep_lowest_failures(const detail::CheckLaunch& a, cudaStream_t stream, CheckPass& pass) {
  const std::int64_t n = a.in.n, max_failures = a.max_failures;
  unsigned long long counters[3];
  const auto failures_below = [&](std::int64_t prefix) {
    detail::CheckLaunch p = a;
    p.in.n = prefix;
    detail::launch_check(p, stream);
    check(cudaGetLastError(), "launch");
    check(cudaMemcpyAsync(counters, a.counters, sizeof counters, cudaMemcpyDeviceToHost, stream), "copy counters");
    check(cudaStreamSynchronize(stream), "prefix pass");
    return static_cast<std::int64_t>(counters[0]);
  };
  const std::int64_t enough = std::max<std::int64_t>(1, max_failures / 4);
  std::int64_t good = 0, bad = n, good_count = 0, last = -1;
  // First guess: where about half the list's worth would fall if failures were even.
  std::int64_t mid = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(n) * max_failures / (2.0 * pass.failures_total)));
  while (good_count < enough && bad - good > 1) {
    mid = std::clamp<std::int64_t>(mid, good + 1, bad - 1);
    const std::int64_t c = failures_below(mid);
    last = mid;
    if (c > max_failures) bad = mid;
    else good = mid, good_count = c;
    mid = good + (bad - good) / 2;
  }
  if (last != good) good_count = good > 0 ? failures_below(good) : 0;
  pass.failures.resize(static_cast<std::size_t>(good_count));
  if (good_count > 0)
    check(cudaMemcpyAsync(pass.failures.data(), a.failures, sizeof(CheckRecord) * pass.failures.size(), cudaMemcpyDeviceToHost, stream),
          "copy failures");
  check(cudaStreamSynchronize(stream), "copy back");
}

}  // namespace

CheckPass gpu_check_device(const DeviceArrays& d, const CheckOptions& o, void* stream_ptr) {
  thread_local Workspace ws;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  const int blocks = detail::check_blocks(d.n);
  const std::int64_t max_failures = static_cast<std::int64_t>(o.max_records);
  const std::size_t partial_bytes = align_up(sizeof(CheckPartial) * blocks);
  const std::size_t failure_bytes = align_up(sizeof(CheckRecord) * std::max<std::int64_t>(max_failures, 1));
  const std::size_t deferred_bytes = align_up(sizeof(DeferredElement) * std::max<std::int64_t>(o.max_deferred, 1));
  unsigned char* w = static_cast<unsigned char*>(ws.get(256 + partial_bytes + failure_bytes + deferred_bytes));
  detail::CheckLaunch a{};
  a.in = d;
  a.gate_bit = 1u << static_cast<int>(o.gate);
  a.index_base = o.index_base;
  a.counters = reinterpret_cast<unsigned long long*>(w);
  a.partials = reinterpret_cast<CheckPartial*>(w + 256);
  a.failures = reinterpret_cast<CheckRecord*>(w + 256 + partial_bytes);
  a.max_failures = max_failures;
  a.deferred = reinterpret_cast<DeferredElement*>(w + 256 + partial_bytes + failure_bytes);
  a.max_deferred = o.max_deferred;
  CheckPass pass;
  if (d.n == 0) return pass;
  detail::launch_check(a, stream);
  check(cudaGetLastError(), "launch");
  unsigned long long counters[3];
  std::vector<CheckPartial> partials(blocks);
  check(cudaMemcpyAsync(counters, a.counters, sizeof counters, cudaMemcpyDeviceToHost, stream), "copy counters");
  check(cudaMemcpyAsync(partials.data(), a.partials, sizeof(CheckPartial) * blocks, cudaMemcpyDeviceToHost, stream), "copy partials");
  check(cudaStreamSynchronize(stream), "check pass");
  if (counters[2] != 0) throw_canary_fault(counters[2]);
  for (const CheckPartial& p : partials) {  // block order: reproducible
    pass.total.merge(p);
    if (p.has_worst && o.max_candidates > 0) pass.candidates.push_back(p.worst);
  }
  keep_worst(pass.candidates, o.max_candidates);
  pass.failures_total = static_cast<std::int64_t>(counters[0]);
  pass.deferred_total = static_cast<std::int64_t>(counters[1]);
  pass.failures.resize(static_cast<std::size_t>(std::min<std::int64_t>(pass.failures_total, max_failures)));
  pass.deferred.resize(static_cast<std::size_t>(std::min<std::int64_t>(pass.deferred_total, o.max_deferred)));
  if (!pass.failures.empty())
    check(cudaMemcpyAsync(pass.failures.data(), a.failures, sizeof(CheckRecord) * pass.failures.size(), cudaMemcpyDeviceToHost, stream),
          "copy failures");
  if (!pass.deferred.empty())
    check(cudaMemcpyAsync(pass.deferred.data(), a.deferred, sizeof(DeferredElement) * pass.deferred.size(),
                          cudaMemcpyDeviceToHost, stream),
          "copy deferred");
  check(cudaStreamSynchronize(stream), "copy back");
  if (pass.failures_total > max_failures) keep_lowest_failures(a, stream, pass);
  std::sort(pass.failures.begin(), pass.failures.end(), [](const CheckRecord& x, const CheckRecord& y) { return x.index < y.index; });
  std::sort(pass.deferred.begin(), pass.deferred.end(),
            [](const DeferredElement& x, const DeferredElement& y) { return x.index < y.index; });
  pass.deferred_complete = pass.deferred_total == static_cast<std::int64_t>(pass.deferred.size());
  return pass;
}

namespace {

struct DeviceCopy {
  void* p = nullptr;
  DeviceCopy(const void* host, std::size_t bytes) {
    check(cudaMalloc(&p, std::max<std::size_t>(bytes, 4)), "cudaMalloc");
    if (bytes) check(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), "copy to device");
  }
  ~DeviceCopy() { cudaFree(p); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
};

}  // namespace

Metrics gpu_compare(const Problem& p, const float* out, Tier gate, std::size_t max_failures, Subnormals subnormals) {
  const std::int64_t n = p.n();
  const DeviceCopy gc(p.gc.data(), p.gc.size()), gs(p.gs.data(), p.gs.size());
  const DeviceCopy theta(p.theta.data(), sizeof(float) * n), o(out, sizeof(float) * n);
  CheckOptions opt;
  opt.gate = gate;
  opt.max_deferred = std::min<std::int64_t>(std::max<std::int64_t>(n, 1), std::int64_t{1} << 22);
  const CheckPass pass = gpu_check_device({gc.p, gs.p, static_cast<const float*>(theta.p), static_cast<const float*>(o.p), n,
                                           ref::abi_code(p.spec.grad_dtype)},
                                          opt);
  if (!pass.deferred_complete) return compare(p, compute_expected(p), out, gate, max_failures, subnormals);
  return settle(pass, [&](std::int64_t i) { return p.element(i); }, gate, max_failures, subnormals);
}

}  // namespace rope2d::verify
