// The GPU testbed (CUDA runtime API; kernels in device_kernels.cu).
#include "rope2d/verify/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "edge_memory.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/gpu_check.hpp"
#include "rope2d/verify/metrics.hpp"
#include "device_kernels.hpp"

namespace rope2d::verify {

namespace {

constexpr std::size_t guard_bytes = 4096;
constexpr unsigned char guard_byte = 0xA5;
// The spin that holds the stream busy must outlast the call's host part and a kernel run on
// another stream. It is sized from an earlier call of the same problem (wall time w, its
// device work included): 2 ms + 4 w, at most 20 ms (what every call got before). Small sets
// then spin about 2 ms instead of 20.
constexpr std::uint64_t spin_floor_ns = 2'000'000, spin_cap_ns = 20'000'000;

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

std::string fmt_hex(float x) {
  char b[32];
  std::snprintf(b, sizeof b, "%a", static_cast<double>(x));
  return b;
}

bool sticky(cudaError_t e) {
  // Errors after which the context is unusable (the kernel faulted).
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorIllegalInstruction ||
         e == cudaErrorMisalignedAddress || e == cudaErrorHardwareStackError || e == cudaErrorInvalidPc ||
         e == cudaErrorAssert || e == cudaErrorLaunchTimeout || e == cudaErrorUnknown;
}

// One device buffer with guard bands; the data region starts `offset` bytes into it. A flush
// buffer ends exactly where its data ends: at an unmapped page where the driver allows (a read
// past the end faults), else at the end of an exact cudaMalloc (compute-sanitizer sees it).
struct Buffer {
  unsigned char* base = nullptr;
  std::size_t allocated = 0;  // bytes of the allocation
  std::size_t bytes = 0, offset = 0;
  bool exact = false;         // allocated for one flush layout
  detail::EdgeAllocation edge;

  void free_all() {
    if (edge.begin()) edge.release();
    else if (base) cudaFree(base);
    base = nullptr;
  }
  void allocate(std::size_t total) {
    free_all();
    check(cudaMalloc(reinterpret_cast<void**>(&base), total), "cudaMalloc");
    allocated = total;
  }
  // Lays out `n` bytes starting `misalign` bytes past a 256-byte boundary with guards around,
  // or flush (the start then follows from n).
  void layout(std::size_t n, std::size_t misalign, bool flush, cudaStream_t s) {
    const std::size_t want = guard_bytes + misalign + n + guard_bytes + 64;
    if (flush || exact || !base || want > allocated) {
      if (base) check(cudaStreamSynchronize(s), "sync");  // earlier work may still read it
      exact = flush;
      if (!flush) allocate(want + (1 << 20));
      else if (free_all(); edge.allocate(guard_bytes + n, nullptr)) base = edge.begin(), allocated = edge.size();
      else allocate(guard_bytes + std::max<std::size_t>(n, 1));
    }
    bytes = n;
    offset = flush ? allocated - n : guard_bytes + misalign;
    check(cudaMemsetAsync(base, guard_byte, offset, s), "cudaMemset guard");
    // Only the band the check reads: the rest of a large allocation needs no refill per set.
    const std::size_t after = std::min(allocated - offset - n, guard_bytes);
    if (after) check(cudaMemsetAsync(base + offset + n, guard_byte, after, s), "cudaMemset guard");
  }
  unsigned char* data() const { return base + offset; }
  // The guard bands read back: up to two guards' worth before the data, one after.
  std::size_t head() const { return std::min(offset, 2 * guard_bytes); }
  std::size_t tail() const { return std::min(guard_bytes, allocated - offset - bytes); }
  void read_guards(unsigned char* dst, cudaStream_t s) const {
    check(cudaMemcpyAsync(dst, base + offset - head(), head(), cudaMemcpyDeviceToHost, s), "copy guard");
    if (tail()) check(cudaMemcpyAsync(dst + head(), base + offset + bytes, tail(), cudaMemcpyDeviceToHost, s), "copy guard");
  }
  ~Buffer() { free_all(); }
};

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
         " elements left unwritten by a call whose output held finite values (the judged call, pre-filled with NaNs, wrote them)";
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

struct Testbed::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  Buffer gc, gs, theta, out, positions, table;
  // A fresh fill of a counter-based problem's inputs, apart from the call's buffers (its own
  // positions and table too, so a kernel that wrote the fused path's inputs is still caught).
  Buffer made_gc, made_gs, made_theta, made_positions, made_table;
  unsigned long long* diff_count = nullptr;  // device: bytes that differ (same_on_device)
  unsigned char* sample = nullptr;           // device: cross_check's gathered sample
  int sample_capacity = 0;
  bool lost = false;
  std::vector<float> spun, again;  // outputs of the checking calls, reused across calls
  std::vector<unsigned char> back;  // an input read back
  std::uint32_t fill_seed = 0;      // the output pre-fill's seed, one per call
  unsigned char* guards = nullptr;   // pinned: every buffer's guard bands, read in one batch
  std::size_t guards_size = 0;

  // All guard bands of `bufs` read back together (one synchronisation); true when intact.
  bool guards_intact(const std::vector<const Buffer*>& bufs) {
    std::size_t need = 0;
    for (const Buffer* b : bufs) need += b->head() + b->tail();
    if (need > guards_size) {
      if (guards) check(cudaFreeHost(guards), "cudaFreeHost");
      guards = nullptr;
      check(cudaMallocHost(reinterpret_cast<void**>(&guards), need), "cudaMallocHost");
      guards_size = need;
    }
    std::size_t at = 0;
    for (const Buffer* b : bufs) {
      b->read_guards(guards + at, stream);
      at += b->head() + b->tail();
    }
    check(cudaStreamSynchronize(stream), "sync");
    return std::all_of(guards, guards + at, [](unsigned char c) { return c == guard_byte; });
  }

  Impl() {
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Impl() {
    if (!lost) {
      if (guards) cudaFreeHost(guards);
      if (diff_count) cudaFree(diff_count);
      if (sample) cudaFree(sample);
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      cudaStreamDestroy(stream);
    }
  }

  void upload(Buffer& b, const void* host, std::size_t n, std::size_t misalign, bool flush = false) {
    b.layout(n, misalign, flush, stream);
    if (n) check(cudaMemcpyAsync(b.data(), host, n, cudaMemcpyHostToDevice, stream), "upload");
  }

  // The inputs of a counter-based problem made here, on the GPU, into gc and gs (and theta when
  // given), laid out as upload() lays them out: guards, misalignment, flush end (`placed`;
  // else at offset 0). A layout problem's positions and theta table go up first into pos and
  // tab (kilobytes), its angles are formed here.
  void make_inputs(const Problem& p, Buffer& bgc, Buffer& bgs, Buffer* btheta, bool placed, Buffer& pos, Buffer& tab) {
    const std::size_t es = ref::size_bytes(p.spec.grad_dtype), n = static_cast<std::size_t>(p.n());
    const auto& o = p.spec.offset;
    const bool flush = placed && p.spec.flush_end;
    bgc.layout(n * es, placed ? o[op_grad_cos] * es : 0, flush, stream);
    bgs.layout(n * es, placed ? o[op_grad_sin] * es : 0, flush, stream);
    if (btheta) btheta->layout(n * 4, placed ? o[op_idx_theta] * 4 : 0, flush, stream);
    const bool layout = !p.positions.empty();
    if (layout && btheta) {
      upload(pos, p.positions.data(), p.positions.size() * 4, 0);
      upload(tab, p.theta_table.data(), p.theta_table.size() * 4, 0);
    }
    detail::launch_counter_fill(bgc.data(), bgs.data(), btheta ? reinterpret_cast<float*>(btheta->data()) : nullptr, p.n(),
                                p.spec.seed, ref::counter::encoding_of(p.spec.grad_dtype),
                                layout ? reinterpret_cast<const std::int32_t*>(pos.data()) : nullptr,
                                layout ? reinterpret_cast<const float*>(tab.data()) : nullptr, p.spec.head_dim, stream);
    check(cudaGetLastError(), "counter fill launch");
  }
  void make_fresh(const Problem& p) { make_inputs(p, made_gc, made_gs, &made_theta, false, made_positions, made_table); }

  // The output hook of run() for Testbed's `judge`: the output judged against a fresh fill of
  // the inputs, not the call's buffers (a kernel that writes its inputs is judged on what it
  // was given, as the CPU judge is with its host copy; the fused call reads no angles, the
  // fill makes them).
  std::function<void(const float*)> judging(const Problem& p, const Testbed::OutputJudge& judge) {
    if (!judge) return {};
    if (!p.counter) throw std::invalid_argument(p.spec.name() + ": judging on the GPU needs a counter-based problem");
    return [this, &p, &judge](const float* o) {
      make_fresh(p);
      judge({made_gc.data(), made_gs.data(), reinterpret_cast<const float*>(made_theta.data()), o, p.n(), ref::abi_code(p.spec.grad_dtype)},
            stream);
    };
  }

  // True when the data of a and b (device) are the same bytes.
  bool same_on_device(const Buffer& a, const Buffer& b) {
    if (a.bytes != b.bytes) return false;
    if (!diff_count) check(cudaMalloc(reinterpret_cast<void**>(&diff_count), sizeof *diff_count), "cudaMalloc");
    check(cudaMemsetAsync(diff_count, 0, sizeof *diff_count, stream), "cudaMemset");
    detail::launch_count_differences(a.data(), b.data(), static_cast<std::int64_t>(a.bytes), diff_count, stream);
    check(cudaGetLastError(), "compare launch");
    unsigned long long differ = 0;
    check(cudaMemcpyAsync(&differ, diff_count, sizeof differ, cudaMemcpyDeviceToHost, stream), "copy count");
    check(cudaStreamSynchronize(stream), "sync");
    return differ == 0;
  }

  // "" when the GPU's counter-based inputs of p equal the CPU's bit for bit, else the first
  // difference in words.
  std::string counter_mismatch(const Problem& p) {
    make_fresh(p);
    const std::pair<const Buffer*, const void*> pairs[] = {{&made_gc, p.gc.data()}, {&made_gs, p.gs.data()}, {&made_theta, p.theta.data()}};
    const char* names[] = {"grad_cos", "grad_sin", "idx_theta"};
    for (int k = 0; k < 3; ++k) {
      const Buffer& b = *pairs[k].first;
      back.resize(b.bytes);
      check(cudaMemcpyAsync(back.data(), b.data(), b.bytes, cudaMemcpyDeviceToHost, stream), "copy back made input");
      check(cudaStreamSynchronize(stream), "sync");
      const auto* host = static_cast<const unsigned char*>(pairs[k].second);
      const auto at = std::mismatch(back.begin(), back.end(), host).first - back.begin();
      if (static_cast<std::size_t>(at) < b.bytes) {
        const std::size_t es = k == 2 ? 4 : ref::size_bytes(p.spec.grad_dtype);
        return std::string(names[k]) + " element " + std::to_string(at / es) + " of " + p.spec.name() + " (seed " +
               std::to_string(p.spec.seed) + ")";
      }
    }
    return "";
  }

  // The sample cross-check (Testbed::cross_check).
  std::string cross_check(const Problem& p, const DeviceArrays& a, int k) {
    const std::int64_t n = p.n();
    if (n == 0 || k <= 0) return "";
    const int es = ref::size_bytes(p.spec.grad_dtype);
    // Indices from the counter (its own stream, 2): the first and last element, then drawn.
    std::vector<std::int64_t> idx(static_cast<std::size_t>(k));
    for (int j = 0; j < k; ++j) {
      const ref::counter::Block w = ref::counter::philox4x32_10(
          ref::counter::Block{{static_cast<std::uint32_t>(j), 0u, 2u, 0u}}, static_cast<std::uint32_t>(p.spec.seed),
          static_cast<std::uint32_t>(p.spec.seed >> 32));
      const std::uint64_t r = (static_cast<std::uint64_t>(w.x[0]) << 32) | w.x[1];
      idx[j] = j == 0 ? 0 : j == 1 ? n - 1 : static_cast<std::int64_t>(r % static_cast<std::uint64_t>(n));
    }
    const std::size_t need = static_cast<std::size_t>(k) * (8 + 2 * 4 + 4 + 4);
    if (k > sample_capacity) {
      if (sample) check(cudaFree(sample), "cudaFree");
      sample = nullptr;
      check(cudaMalloc(reinterpret_cast<void**>(&sample), need), "cudaMalloc");
      sample_capacity = k;
    }
    auto* d_idx = reinterpret_cast<std::int64_t*>(sample);
    unsigned char* d_gc = sample + 8 * k;
    unsigned char* d_gs = d_gc + 4 * k;
    auto* d_theta = reinterpret_cast<float*>(d_gs + 4 * k);
    auto* d_out = d_theta + k;
    check(cudaMemcpyAsync(d_idx, idx.data(), 8 * k, cudaMemcpyHostToDevice, stream), "copy sample indices");
    detail::launch_gather(a.gc, a.gs, a.theta, es, d_idx, k, d_gc, d_gs, d_theta, stream);
    // An output every element fails by far, so that each settled one comes back with its reference.
    detail::launch_fill32(reinterpret_cast<std::uint32_t*>(d_out), k, std::bit_cast<std::uint32_t>(0x1p100f), stream);
    check(cudaGetLastError(), "sample launch");
    CheckOptions o;
    o.gate = Tier::float32_bound;
    o.max_records = static_cast<std::size_t>(k);
    o.max_deferred = k;
    const CheckPass pass = gpu_check_device({d_gc, d_gs, d_theta, d_out, k, a.grad_dtype}, o, stream);
    Problem q;  // the gathered inputs, as the GPU made them
    q.spec = p.spec;
    q.spec.elements = k;
    q.gc.resize(static_cast<std::size_t>(k) * es);
    q.gs.resize(static_cast<std::size_t>(k) * es);
    q.theta.resize(static_cast<std::size_t>(k));
    check(cudaMemcpyAsync(q.gc.data(), d_gc, q.gc.size(), cudaMemcpyDeviceToHost, stream), "copy sample");
    check(cudaMemcpyAsync(q.gs.data(), d_gs, q.gs.size(), cudaMemcpyDeviceToHost, stream), "copy sample");
    check(cudaMemcpyAsync(q.theta.data(), d_theta, 4 * q.theta.size(), cudaMemcpyDeviceToHost, stream), "copy sample");
    check(cudaStreamSynchronize(stream), "sync");
    auto where = [&](int j) { return p.spec.name() + " element " + std::to_string(idx[j]) + " (seed " + std::to_string(p.spec.seed) + ")"; };
    auto same = [](double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); };
    for (int j = 0; j < k; ++j) {  // the GPU's inputs are the CPU's (the counter, on the host)
      const ref::Element want = p.element(idx[j]), got = q.element(j);
      if (!same(want.gc, got.gc) || !same(want.gs, got.gs) || std::bit_cast<std::uint32_t>(want.t) != std::bit_cast<std::uint32_t>(got.t))
        return "GPU-made input differs from the CPU's at " + where(j);
    }
    if (static_cast<std::int64_t>(pass.failures.size()) + pass.deferred_total != k)
      return "GPU comparison of the sample of " + p.spec.name() + " returned " + std::to_string(pass.failures.size()) + " records and " +
             std::to_string(pass.deferred_total) + " deferred of " + std::to_string(k);
    const Expected x = compute_expected(q);  // the CPU certified path
    for (const CheckRecord& r : pass.failures) {
      const auto j = static_cast<int>(r.index);
      if (std::bit_cast<std::uint32_t>(r.ref) != std::bit_cast<std::uint32_t>(x.fp32[j]))
        return "GPU reference " + fmt_hex(r.ref) + " differs from the CPU certified " + fmt_hex(x.fp32[j]) + " at " + where(j);
    }
    return "";
  }

  bool unchanged(const Buffer& b, const void* host) {
    back.resize(b.bytes);  // scratch kept across calls: no fresh pages per check
    check(cudaMemcpyAsync(back.data(), b.data(), b.bytes, cudaMemcpyDeviceToHost, stream), "copy back input");
    check(cudaStreamSynchronize(stream), "sync");
    const bool same = b.bytes == 0 || std::memcmp(back.data(), host, b.bytes) == 0;
    if (back.size() > (std::size_t{1} << 30)) back = {};  // a --huge input: not kept
    return same;
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
      if (sticky(d)) {
        lost = integ.context_lost = true;
        return seed;
      }
      cudaGetLastError();
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
    if (p.spec.light) checks.stream = checks.repeat = false;  // sweeps: one call, guards and inputs
    if (lost) {
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
    r.integrity.guards_intact = guards_intact(guarded);
    bool fresh = false;
    for (std::size_t i = 0; i < inputs.size() && checks.inputs; ++i) {
      if (host_inputs[i]) {
        if (!unchanged(*inputs[i], host_inputs[i])) r.integrity.inputs_unchanged = false;
        continue;
      }
      if (!fresh) make_fresh(p);
      fresh = true;
      const Buffer* made[] = {&made_gc, &made_gs, &made_theta};
      if (i > 2 || !same_on_device(*inputs[i], *made[i])) r.integrity.inputs_unchanged = false;
    }
    // Inputs the GPU made that differ from the CPU's are the verifier's fault, not the kernel's.
    if (!r.integrity.inputs_unchanged && p.counter && !p.device_only)
      if (const std::string d = counter_mismatch(p); !d.empty())
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
    m.make_inputs(p, m.gc, m.gs, &m.theta, true, m.positions, m.table);
  } else {
    m.upload(m.gc, p.gc.data(), p.gc.size(), o[op_grad_cos] * es, flush);
    m.upload(m.gs, p.gs.data(), p.gs.size(), o[op_grad_sin] * es, flush);
    m.upload(m.theta, p.theta.data(), p.theta.size() * 4, o[op_idx_theta] * 4, flush);
  }
  const int dtype = ref::abi_code(p.spec.grad_dtype);
  auto call = [&](cudaStream_t s) {
    return fn(m.gc.data(), m.gs.data(), reinterpret_cast<const float*>(m.theta.data()),
              reinterpret_cast<float*>(m.out.data()), p.n(), dtype, s);
  };
  const auto judged = m.judging(p, judge);
  if (p.device_only) return m.run(p, checks, call, {&m.gc, &m.gs, &m.theta}, {nullptr, nullptr, nullptr}, judged);
  return m.run(p, checks, call, {&m.gc, &m.gs, &m.theta}, {p.gc.data(), p.gs.data(), p.theta.data()}, judged);
}

DeviceRun Testbed::run_fused(FusedFn fn, const Problem& p, const RunChecks& checks, const OutputJudge& judge) {
  if (p.positions.empty()) throw std::invalid_argument(p.spec.name() + ": the fused path needs a layout problem");
  Impl& m = *impl_;
  const std::size_t es = ref::size_bytes(p.spec.grad_dtype);
  const auto& o = p.spec.offset;
  if (p.counter) {
    m.make_inputs(p, m.gc, m.gs, nullptr, true, m.positions, m.table);
  } else {
    m.upload(m.gc, p.gc.data(), p.gc.size(), o[op_grad_cos] * es, p.spec.flush_end);
    m.upload(m.gs, p.gs.data(), p.gs.size(), o[op_grad_sin] * es, p.spec.flush_end);
  }
  m.upload(m.positions, p.positions.data(), p.positions.size() * 4, 0);
  m.upload(m.table, p.theta_table.data(), p.theta_table.size() * 4, 0);
  const int dtype = ref::abi_code(p.spec.grad_dtype);
  const std::int64_t tokens = static_cast<std::int64_t>(p.positions.size() / 2);
  auto call = [&](cudaStream_t s) {
    return fn(m.gc.data(), m.gs.data(), reinterpret_cast<const std::int32_t*>(m.positions.data()),
              reinterpret_cast<const float*>(m.table.data()), reinterpret_cast<float*>(m.out.data()), tokens,
              static_cast<int>(p.spec.head_dim), dtype, s);
  };
  const auto judged = m.judging(p, judge);
  const void* host_gc = p.device_only ? nullptr : p.gc.data();
  const void* host_gs = p.device_only ? nullptr : p.gs.data();
  return m.run(p, checks, call, {&m.gc, &m.gs, &m.positions, &m.table}, {host_gc, host_gs, p.positions.data(), p.theta_table.data()},
               judged);
}

std::string Testbed::cross_check(const Problem& p, const DeviceArrays& a, int samples) {
  return impl_->cross_check(p, a, samples);
}

std::string Testbed::counter_mismatch(const Problem& p) {
  if (!p.counter) throw std::invalid_argument(p.spec.name() + ": not a counter-based problem");
  return impl_->counter_mismatch(p);
}

}  // namespace rope2d::verify
