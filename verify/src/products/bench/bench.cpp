// Timed calls for rope2d bench and rope2d verify --bench (bench.hpp).
#include "products/bench/bench.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>
#include "rope2d/verify/judge/judge.hpp"
#include "harness/testbed/prefill.hpp"
#include "harness/remote_kernel.hpp"
#include "harness/testbed/buffers.hpp"  // differing_bytes
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

std::int64_t shift(int run) { return (run % bench_shifts) * bench_shift_step; }

}  // namespace

double workload_bytes(const Workload& w) { return 12.0 * w.batch * w.seq_len * 128; }

SolAnchors workload_anchors(std::size_t k) {
  std::vector<double> bytes;
  for (const Workload& w : benchmark_workloads()) bytes.push_back(workload_bytes(w));
  return sol_anchors(bytes.at(k), geomean(bytes));
}

Problem bench_problem(AngleSource src, std::int64_t batch, std::int64_t seq_len, std::uint64_t seed) {
  ProblemSpec spec;
  spec.set = src == AngleSource::layout ? "layout" : "randn";
  spec.source = src;
  spec.seed = seed;
  if (src == AngleSource::layout) {
    spec.batch = batch;
    spec.seq_len = seq_len + bench_shifts * bench_shift_step / spec.head_dim;  // whole tokens of slack
  } else {
    spec.elements = batch * seq_len * spec.head_dim + bench_shifts * bench_shift_step;
  }
  return make_problem(spec);
}

DeviceInputs::DeviceInputs(const Problem& p, std::int64_t n)
    : n_(n), grad_bytes_(ref::size_bytes(p.spec.grad_dtype)), grad_dtype_(ref::abi_code(p.spec.grad_dtype)) {
  if (n + (bench_shifts - 1) * bench_shift_step > p.n())
    throw std::invalid_argument("bench problem " + p.spec.name() + " has no room to shift " + std::to_string(n) +
                                " elements");
  // One allocation carved into 256-byte aligned buffers, the way a framework's caching
  // allocator places a call's tensors (small ones share one 2 MiB segment), rather than a
  // cudaMalloc each.
  const std::size_t sizes[] = {p.gc.size(),         p.gs.size(),           p.theta.size() * 4,
                               p.theta.size() * 4,  p.positions.size() * 4, p.theta_table.size() * 4};
  const void* sources[] = {p.gc.data(), p.gs.data(), p.theta.data(), nullptr, p.positions.data(), p.theta_table.data()};
  void** slots[] = {&gc_, &gs_, &theta_, &out_, &pos_, &table_};
  auto padded = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  std::size_t total = 0;
  for (std::size_t bytes : sizes) total += padded(bytes);
  // Shared with a boxed kernel's host where one is in use (harness/testbed/buffers.hpp).
  shared_ = std::make_unique<detail::EdgeAllocation>();
  if (detail::allocate_shared(*shared_, total)) arena_ = shared_->begin();
  else check(cudaMalloc(&arena_, total), "cudaMalloc");
  char* at = static_cast<char*>(arena_);
  for (int k = 0; k < 6; ++k) {
    if (sizes[k] == 0) continue;
    *slots[k] = at;
    at += padded(sizes[k]);
    if (sources[k] && cudaMemcpy(*slots[k], sources[k], sizes[k], cudaMemcpyHostToDevice) != cudaSuccess) {
      release();
      throw std::runtime_error("upload of bench problem " + p.spec.name() + " failed");
    }
  }
}

void DeviceInputs::release() {
  if (shared_ && shared_->begin()) detail::unshare(*shared_), shared_->release();
  else if (arena_) cudaFree(arena_);
  arena_ = nullptr;
}

DeviceInputs::~DeviceInputs() { release(); }

const void* DeviceInputs::gc(int run) const { return static_cast<const char*>(gc_) + shift(run) * grad_bytes_; }
const void* DeviceInputs::gs(int run) const { return static_cast<const char*>(gs_) + shift(run) * grad_bytes_; }
const float* DeviceInputs::theta(int run) const { return static_cast<const float*>(theta_) + shift(run); }
float* DeviceInputs::out(int run) const { return static_cast<float*>(out_) + shift(run); }
const std::int32_t* DeviceInputs::positions(int run) const {
  return static_cast<const std::int32_t*>(pos_) + 2 * (shift(run) / 128);  // (y, x) per token
}

Timing time_backward(Timer& timer, const BackwardCall& fn, const DeviceInputs& d, const TimingOptions& o) {
  int rc = 0;
  const Timing t = timer.time([&](int r, CUstream_st* s) {
    if (const int e = fn(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s); e && !rc) rc = e;
  }, o);
  if (rc) throw std::runtime_error("the timed kernel returned " + std::to_string(rc));
  return t;
}

Timing time_fused(Timer& timer, const FusedCall& fn, const DeviceInputs& d, const TimingOptions& o) {
  if (!d.has_positions()) throw std::invalid_argument("time_fused: the problem has no positions (not a layout problem)");
  int rc = 0;
  const std::int64_t tokens = d.n() / 128;
  const Timing t = timer.time([&](int r, CUstream_st* s) {
    const int e = fn(d.gc(r), d.gs(r), d.positions(r), d.theta_table(), d.out(r), tokens, 128, d.grad_dtype(), s);
    if (e && !rc) rc = e;
  }, o);
  if (rc) throw std::runtime_error("the timed fused kernel returned " + std::to_string(rc));
  return t;
}

Problem window(const Problem& p, std::int64_t first, std::int64_t n) {
  if (p.device_only || first < 0 || n < 0 || first + n > p.n())
    throw std::invalid_argument("window [" + std::to_string(first) + ", +" + std::to_string(n) + ") of " + p.spec.name() +
                                ": outside its host inputs");
  Problem w;
  w.spec = p.spec;
  w.spec.elements = n;
  w.spec.offset = {};
  const std::size_t es = ref::size_bytes(p.spec.grad_dtype);
  w.gc.assign(p.gc.begin() + first * es, p.gc.begin() + (first + n) * es);
  w.gs.assign(p.gs.begin() + first * es, p.gs.begin() + (first + n) * es);
  w.theta.assign(p.theta.begin() + first, p.theta.begin() + first + n);
  return w;
}

std::string JudgedTiming::describe() const {
  std::string s = "the first call at each of " + std::to_string(bench_shifts) + " addresses judged against the reference, " +
                  std::to_string(compared_calls) + " later calls (timed ones included) compared with it bit for bit";
  if (differing_calls)
    s += "; " + std::to_string(differing_calls) + " gave other bits than the first call at their address (first: call " +
         std::to_string(first_differing) + ", " + std::to_string(differing_bytes) + " bytes in all)";
  return s;
}

JudgedTiming time_and_judge_backward(Timer& timer, const BackwardCall& fn, const DeviceInputs& d, const Problem& p, Tier gate,
                                     Subnormals subnormals, const TimingOptions& o) {
  const std::int64_t n = d.n(), bytes = n * 4;
  JudgedTiming j;
  // Each first call one round of the judge's tally (judge.hpp), as the suite's calls are.
  SetTally tally({p.spec.name(), p.spec.set, p.spec.grad_dtype}, p.spec.grad_dtype, gate, subnormals);
  // The first call's output at each address, kept on the device; a counter of differing bytes.
  void* firsts = nullptr;
  unsigned long long* count = nullptr;
  check(cudaMalloc(&firsts, std::max<std::int64_t>(bench_shifts * bytes, 4) + 8), "cudaMalloc");
  count = reinterpret_cast<unsigned long long*>(static_cast<char*>(firsts) + std::max<std::int64_t>(bench_shifts * bytes, 4));
  struct Free {
    void* p;
    ~Free() { cudaFree(p); }
  } free_firsts{firsts};
  auto first_of = [&](int r) { return static_cast<char*>(firsts) + (r % bench_shifts) * bytes; };
  int rc = 0;
  std::vector<float> host(static_cast<std::size_t>(n));
  // Every call's output pre-filled per element (prefill.hpp) outside the timed interval: the
  // first call at each address with varied NaNs, those still held after it poisoned (counted
  // unwritten by the judge); every later call with plausible finite values or a mix, as
  // memory in real use holds, so an element it leaves unwritten differs from the first call's
  // (never an earlier call's result at the same address).
  auto seed_of = [](int r) { return 0x9e3779b9u ^ static_cast<std::uint32_t>(r + 1); };
  auto style_of = [&](int r) { return r < bench_shifts ? PrefillStyle::nan : repeat_style(seed_of(r)); };
  auto prefill = [&](int r, cudaStream_t s) {
    detail::launch_prefill(reinterpret_cast<std::uint32_t*>(d.out(r)), n, seed_of(r), style_of(r), s);
    check(cudaGetLastError(), "pre-fill launch");
  };
  // Call r's output judged: the first call at each address against the reference (kept on the
  // device), every later one bit for bit against the first at its address.
  auto judge_call = [&](int r, cudaStream_t s) {
    if (r < bench_shifts) {
      check(cudaMemcpyAsync(first_of(r), d.out(r), bytes, cudaMemcpyDeviceToDevice, s), "copy of a call's output");
      check(cudaMemcpyAsync(host.data(), d.out(r), bytes, cudaMemcpyDeviceToHost, s), "copy back a call's output");
      check(cudaStreamSynchronize(s), "sync");
      const Problem w = window(p, shift(r), n);
      tally.round(w, compute_expected(w), host.data());
      return;
    }
    const unsigned long long diff = detail::differing_bytes(first_of(r), d.out(r), bytes, count, s);
    ++j.compared_calls;
    if (diff) {
      if (!j.differing_calls++) j.first_differing = r;
      j.differing_bytes += static_cast<std::int64_t>(diff);
    }
  };
  prefill(0, nullptr);
  check(cudaDeviceSynchronize(), "pre-fill");
  j.timing = timer.time(
      [&](int r, CUstream_st* s) {
        if (const int e = fn(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s); e && !rc) rc = e;
      },
      o,
      [&](int r, CUstream_st* s) {
        if (rc) return;
        if (style_of(r) == PrefillStyle::nan)
          detail::launch_poison_unwritten(reinterpret_cast<std::uint32_t*>(d.out(r)), n, seed_of(r), s);
        judge_call(r, s);
        prefill(r + 1, s);  // the next call's, before its L2 flush and lead
      });
  if (rc) throw std::runtime_error("the timed kernel returned " + std::to_string(rc));
  j.metrics = tally.finish().metrics;
  return j;
}

BenchSets bench_submission(BackwardFn fn, Tier gate, Subnormals subnormals, std::uint64_t seed) {
  Timer timer;
  // CUPTI in this process sees no kernel of a boxed submission (its host's process runs them):
  // its calls are timed by this process's events around the host's launch.
  const bool boxed = harness::RemoteKernel::active() != nullptr;
  const bool kernel_clock = timer.has_kernel_clock() && !boxed;
  BenchSets b;
  std::vector<double> times, scores;
  for (std::size_t k = 0; k < benchmark_workloads().size(); ++k) {
    const Workload& w = benchmark_workloads()[k];
    const std::string name = fmt::format("bench {}x{}", w.batch, w.seq_len);
    SetResult r;
    r.name = fmt::format("bench/bf16/{}x{}", w.batch, w.seq_len);
    r.set = "bench";
    r.dtype = ref::Dtype::bf16;
    r.shape = {w.batch, w.seq_len, 128};
    try {
      const Problem p = bench_problem(AngleSource::randn, w.batch, w.seq_len, seed + 77 + k);
      const DeviceInputs d(p, w.batch * w.seq_len * 128);
      const JudgedTiming j = time_and_judge_backward(timer, fn, d, p, gate, subnormals);
      const Timing& t = j.timing;
      const double ms = kernel_clock ? t.kernel_ms : t.event_ms;
      const double score = sol_score(ms, workload_anchors(k));
      times.push_back(ms);
      scores.push_back(score);
      const std::string kernel = kernel_clock ? fmt::format("{:.2f} us kernel, ", t.kernel_ms * 1e3) : "";
      b.header.push_back({name, fmt::format("{}{:.2f} us events, SOL score (est.) {:.3f}", kernel, t.event_ms * 1e3, score)});
      r.metrics = j.metrics;
      r.integrity = j.differing_calls ? j.describe() : "ok";
      r.kernel_ms = t.event_ms;
      b.results.push_back(std::move(r));
    } catch (const std::exception& e) {
      b.header.push_back({name, fmt::format("not timed: {}", e.what())});
      r.error = std::string("not timed: ") + e.what();
      b.results.push_back(std::move(r));
      return b;
    }
  }
  double mean = 0;
  for (double s : scores) mean += s / scores.size();
  b.header.push_back({"bench clock", boxed ? "CUDA events around the boxed kernel host's launch (its kernels are in another "
                                             "process: no kernel records here)"
                                           : timer.kernel_clock_note()});
  b.header.push_back({"bench calls", fmt::format("judged (sets bench/...): the first call at each of {} addresses against the "
                                                 "reference, every later call ({} warm-up and {} timed in all) bit for bit "
                                                 "against it",
                                                 bench_shifts, TimingOptions{}.warmup, TimingOptions{}.runs)});
  b.header.push_back({"bench geomean", fmt::format("{:.2f} us; mean SOL score (est., B200 anchors scaled by bytes) {:.3f}",
                                                   geomean(times) * 1e3, mean)});
  return b;
}

Timing time_io_floor(Timer& timer, const DeviceInputs& d, const TimingOptions& o) {
  return timer.time([&](int r, CUstream_st* s) {
    detail::launch_io_floor(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s);
  }, o);
}

}  // namespace rope2d::verify
