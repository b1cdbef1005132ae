// The GPU testbed (CUDA runtime API; kernels in device_kernels.cu): the calls and their
// integrity checks; its memory in buffers.cpp, the fresh fills it judges against in
// fresh_inputs.cpp.
#include "harness/testbed/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "harness/remote_kernel.hpp"
#include "harness/testbed/buffers.hpp"
#include "harness/testbed/fresh_inputs.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify {

using detail::Buffer;
using detail::check;
static_assert(std::is_same_v<Testbed::OutputJudge, detail::FreshInputs::Judge>);

namespace {

// The spin that holds the stream busy must outlast the call's host part and a kernel run on
// another stream. It is sized from an earlier call of the same problem (wall time w, its
// device work included): 2 ms + 4 w, at most 20 ms (what every call got before). Small sets
// then spin about 2 ms instead of 20.
constexpr std::uint64_t spin_floor_ns = 2'000'000, spin_cap_ns = 20'000'000;

}  // namespace

std::string Integrity::describe() const {
  std::string s;
  auto add = [&](bool bad, const char* what) {
    if (bad) s += (s.empty() ? "" : "; ") + std::string(what);
  };
  if (!call_error.empty()) s = "call failed: " + call_error;
  add(!inputs_unchanged, "inputs modified by the call");
  add(!guards_intact, "wrote outside the output (guard band changed)");
  add(!stream_respected, "did not run on the given stream (outputs overwritten by work queued before the call)");
  add(!deterministic, "a second call on the same inputs gave different bits");
  if (left_unwritten)
    s += (s.empty() ? "" : "; ") + std::to_string(left_unwritten) +
         " elements left unwritten by a call whose output held finite values or a mix (still holding that call's pre-fill "
         "where the judged call's output differs)";
  return s.empty() ? "ok" : s;
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

DeviceInfo probe_device() {
  DeviceInfo info;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    info.reason = std::string("no usable CUDA driver or device (") + cudaGetErrorName(e) + ")";
    cudaGetLastError();
    return info;
  }
  if (count == 0) {
    info.reason = "no CUDA device";
    return info;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    info.reason = "cudaGetDeviceProperties failed";
    return info;
  }
  info.available = true;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1ull << 30);
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  return info;
}

// The calling side of the testbed: the calls and their sequence (pre-fill, stream hold, timed
// call, repeat) on one stream, over the memory side (buffers.hpp) and the fresh fills the GPU
// judging compares with (fresh_inputs.hpp).
struct Testbed::Impl {
  cudaStream_t stream = new_stream();
  cudaEvent_t start = new_event(), stop = new_event();
  detail::DeviceMemory mem{stream};
  detail::FreshInputs fresh{mem};
  Buffer gc{.handed = true}, gs{.handed = true}, theta{.handed = true}, out{.handed = true}, positions{.handed = true},
      table{.handed = true};
  std::vector<float> spun, again;  // outputs of the checking calls, reused across calls
  std::uint32_t fill_seed = 0;      // the output pre-fill's seed, one per call

  static cudaStream_t new_stream() {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    return s;
  }
  static cudaEvent_t new_event() {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    return e;
  }
  ~Impl() {
    if (mem.lost) return;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  }

  // Pre-fills the output (per call and per element varied contents, prefill.hpp: a NaN, or
  // with `repeat` the repeat call's finite or mixed style), optionally behind a spin of `spin`
  // ns on the stream, calls, turns the elements still holding a NaN pre-fill into the poison
  // (unwritten, as the judge counts them), and reads the output back into `host`. Returns the
  // pre-fill's seed. `wall_ns`, when given, gets the call's wall time through the device
  // synchronisation.
  template <class Call>
  std::uint32_t call_once(const Problem& p, Call&& call, std::uint64_t spin, Integrity& integ, double* ms,
                          std::vector<float>& host, std::uint64_t* wall_ns = nullptr, bool repeat = false) {
    const std::int64_t n = p.n();
    host.clear();
    if (spin) detail::launch_spin(spin, stream);
    // Filling in 4-byte words needs 4-byte alignment, which a float output always has.
    const std::uint32_t seed = ++fill_seed;
    const PrefillStyle style = repeat ? repeat_style(seed) : PrefillStyle::nan;
    detail::launch_prefill(reinterpret_cast<std::uint32_t*>(out.data()), n, seed, style, stream);
    check(cudaGetLastError(), "pre-fill launch");
    check(cudaEventRecord(start, stream), "event");
    const auto began = std::chrono::steady_clock::now();
    const int rc = call(stream);
    check(cudaEventRecord(stop, stream), "event");
    if (rc == ROPE2D_ERR_UNSUPPORTED_DTYPE) {
      integ.declined = true;
      integ.call_error = "declined grad dtype " + std::string(ref::name(p.spec.grad_dtype)) + " (ROPE2D_ERR_UNSUPPORTED_DTYPE)";
    } else if (rc != 0) {
      integ.call_error = "returned " + std::to_string(rc) + " (" + cudaGetErrorName(static_cast<cudaError_t>(rc)) + ")";
    }
    const cudaError_t e = cudaStreamSynchronize(stream);
    const cudaError_t d = e == cudaSuccess ? cudaDeviceSynchronize() : e;  // work it left on other streams
    if (wall_ns)
      *wall_ns = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - began).count());
    if (d != cudaSuccess) {
      integ.call_error = std::string(cudaGetErrorName(d)) + " after the call (" + cudaGetErrorString(d) + ")";
      if (detail::sticky(d)) {
        mem.lost = integ.context_lost = true;
        return seed;
      }
      cudaGetLastError();
    }
    // A boxed kernel (harness/remote_kernel.hpp): its host's word on the call's end; a host
    // that died or faulted runs no more calls (this process's context is unharmed).
    bool host_lost = false, late = false;
    if (const std::string remote = harness::settle_remote_call(&host_lost, &late); !remote.empty() && (integ.call_error.empty() || host_lost)) {
      integ.call_error = remote;
      integ.timed_out = late;
    }
    if (host_lost) {
      integ.context_lost = true;
      return seed;
    }
    if (ms) {
      float f = 0;
      cudaEventElapsedTime(&f, start, stop);
      *ms = f;
    }
    if (style == PrefillStyle::nan) {
      detail::launch_poison_unwritten(reinterpret_cast<std::uint32_t*>(out.data()), n, seed, stream);
      check(cudaGetLastError(), "unwritten launch");
    }
    host.resize(n);
    if (n) check(cudaMemcpyAsync(host.data(), out.data(), n * 4, cudaMemcpyDeviceToHost, stream), "copy back output");
    check(cudaStreamSynchronize(stream), "sync");
    return seed;
  }

  // host_inputs[k] null: input k (grad_cos, grad_sin, idx_theta in that order) of a problem
  // made on the GPU, compared with a fresh GPU fill. `judged`, when given, sees the timed
  // call's output on the device before any later call overwrites it.
  template <class Call>
  DeviceRun run(const Problem& p, RunChecks checks, Call&& call, const std::vector<Buffer*>& inputs,
                const std::vector<const void*>& host_inputs, const std::function<void(const float*)>& judged = {}) {
    DeviceRun r;
    fresh.forget();  // each run fills the judge's copy of its inputs at most once
    if (p.spec.light) checks.stream = checks.repeat = false;  // sweeps: one call, guards and inputs
    if (mem.lost) {
      r.integrity.call_error = "the CUDA context was lost by an earlier call";
      r.integrity.context_lost = true;
      return r;
    }
    const std::int64_t n = p.n();
    out.layout(static_cast<std::size_t>(n) * 4, static_cast<std::size_t>(p.spec.offset[op_out]) * 4, false, stream);
    // With the stream check: a first call (its wall time sizes the spin; its output is the
    // repeat check's), then one behind the spin: a kernel that ignores the stream runs during
    // the spin and the poison queued after the spin overwrites its results; then the timed call.
    std::uint32_t repeat_seed = 0;
    if (checks.stream) {
      std::uint64_t wall = 0;
      repeat_seed = call_once(p, call, 0, r.integrity, nullptr, again, &wall, checks.repeat);
      if (r.integrity.context_lost || !r.integrity.call_error.empty()) return r;
      call_once(p, call, std::min(spin_cap_ns, spin_floor_ns + 4 * wall), r.integrity, nullptr, spun);
      if (r.integrity.context_lost || !r.integrity.call_error.empty()) return r;
    }
    call_once(p, call, 0, r.integrity, &r.kernel_ms, r.out);
    if (r.integrity.context_lost || !r.integrity.call_error.empty()) return r;
    if (judged) judged(reinterpret_cast<const float*>(out.data()));
    if (checks.stream) {
      for (std::int64_t i = 0; i < n; ++i) {
        const auto a = std::bit_cast<std::uint32_t>(spun[i]), b = std::bit_cast<std::uint32_t>(r.out[i]);
        if (a == poison_bits && b != poison_bits) r.integrity.stream_respected = false;
        else if (!same_result(a, b)) r.integrity.deterministic = false;
      }
    }
    if (checks.repeat && !checks.stream) {  // with the stream check, the first call was the repeat
      fresh.forget();  // a call runs after the judging's fill: the inputs check fills anew
      Integrity second;
      repeat_seed = call_once(p, call, 0, second, nullptr, again, nullptr, true);
      if (!second.call_error.empty()) {
        r.integrity.call_error = "second call: " + second.call_error;
        r.integrity.context_lost = second.context_lost;
        return r;
      }
    }
    if (checks.repeat && std::memcmp(again.data(), r.out.data(), n * 4) != 0) {
      const RepeatFindings f = repeat_check(reinterpret_cast<const std::uint32_t*>(again.data()),
                                            reinterpret_cast<const std::uint32_t*>(r.out.data()), n, repeat_seed,
                                            repeat_style(repeat_seed));
      r.integrity.left_unwritten = f.left_unwritten;
      if (f.differing) r.integrity.deterministic = false;
    }
    std::vector<const Buffer*> guarded{&out};
    guarded.insert(guarded.end(), inputs.begin(), inputs.end());
    r.integrity.guards_intact = mem.guards_intact(guarded);
    for (std::size_t i = 0; i < inputs.size() && checks.inputs; ++i) {
      if (host_inputs[i]) {
        if (!mem.unchanged(*inputs[i], host_inputs[i])) r.integrity.inputs_unchanged = false;
        continue;
      }
      fresh.make(p);  // the judging's fill where it made one
      if (i > 2 || !mem.same_on_device(*inputs[i], *fresh.made(i))) r.integrity.inputs_unchanged = false;
    }
    // Inputs the GPU made that differ from the CPU's are the verifier's fault, not the kernel's.
    if (!r.integrity.inputs_unchanged && p.counter && !p.device_only)
      if (const std::string d = fresh.counter_mismatch(p); !d.empty())
        throw std::runtime_error("verifier error: the GPU's counter-based inputs differ from the CPU's at " + d);
    return r;
  }
};

Testbed::Testbed() : impl_(std::make_unique<Impl>()) {}
Testbed::~Testbed() = default;

DeviceRun Testbed::run(BackwardFn fn, const Problem& p, const RunChecks& checks, const OutputJudge& judge) {
  Impl& m = *impl_;
  const std::size_t es = ref::size_bytes(p.spec.grad_dtype);
  const auto& o = p.spec.offset;
  const bool flush = p.spec.flush_end;
  if (p.counter) {  // made on the GPU from the counter: no copy of the inputs
    m.mem.make_inputs(p, m.gc, m.gs, &m.theta, true, m.positions, m.table);
  } else {
    m.mem.upload(m.gc, p.gc.data(), p.gc.size(), o[op_grad_cos] * es, flush);
    m.mem.upload(m.gs, p.gs.data(), p.gs.size(), o[op_grad_sin] * es, flush);
    m.mem.upload(m.theta, p.theta.data(), p.theta.size() * 4, o[op_idx_theta] * 4, flush);
  }
  const int dtype = ref::abi_code(p.spec.grad_dtype);
  auto call = [&](cudaStream_t s) {
    return fn(m.gc.data(), m.gs.data(), reinterpret_cast<const float*>(m.theta.data()),
              reinterpret_cast<float*>(m.out.data()), p.n(), dtype, s);
  };
  const auto judged = m.fresh.judging(p, judge);
  if (p.device_only) return m.run(p, checks, call, {&m.gc, &m.gs, &m.theta}, {nullptr, nullptr, nullptr}, judged);
  return m.run(p, checks, call, {&m.gc, &m.gs, &m.theta}, {p.gc.data(), p.gs.data(), p.theta.data()}, judged);
}

DeviceRun Testbed::run_fused(FusedFn fn, const Problem& p, const RunChecks& checks, const OutputJudge& judge) {
  if (p.positions.empty()) throw std::invalid_argument(p.spec.name() + ": the fused path needs a layout problem");
  Impl& m = *impl_;
  const std::size_t es = ref::size_bytes(p.spec.grad_dtype);
  const auto& o = p.spec.offset;
  if (p.counter) {
    m.mem.make_inputs(p, m.gc, m.gs, nullptr, true, m.positions, m.table);
  } else {
    m.mem.upload(m.gc, p.gc.data(), p.gc.size(), o[op_grad_cos] * es, p.spec.flush_end);
    m.mem.upload(m.gs, p.gs.data(), p.gs.size(), o[op_grad_sin] * es, p.spec.flush_end);
  }
  m.mem.upload(m.positions, p.positions.data(), p.positions.size() * 4, 0);
  m.mem.upload(m.table, p.theta_table.data(), p.theta_table.size() * 4, 0);
  const int dtype = ref::abi_code(p.spec.grad_dtype);
  const std::int64_t tokens = static_cast<std::int64_t>(p.positions.size() / 2);
  auto call = [&](cudaStream_t s) {
    return fn(m.gc.data(), m.gs.data(), reinterpret_cast<const std::int32_t*>(m.positions.data()),
              reinterpret_cast<const float*>(m.table.data()), reinterpret_cast<float*>(m.out.data()), tokens,
              static_cast<int>(p.spec.head_dim), dtype, s);
  };
  const auto judged = m.fresh.judging(p, judge);
  const void* host_gc = p.device_only ? nullptr : p.gc.data();
  const void* host_gs = p.device_only ? nullptr : p.gs.data();
  return m.run(p, checks, call, {&m.gc, &m.gs, &m.positions, &m.table}, {host_gc, host_gs, p.positions.data(), p.theta_table.data()},
               judged);
}

std::string Testbed::cross_check(const Problem& p, const DeviceArrays& a, int samples) {
  return impl_->fresh.cross_check(p, a, samples);
}

std::string Testbed::counter_mismatch(const Problem& p) {
  if (!p.counter) throw std::invalid_argument(p.spec.name() + ": not a counter-based problem");
  impl_->fresh.forget();
  return impl_->fresh.counter_mismatch(p);
}

}  // namespace rope2d::verify
