// What `rope2d bench` and `rope2d verify --bench` time: a problem's inputs on the device with
// room to rotate them over shifted addresses (so no run finds its inputs where the last one
// left them), and the timed calls through the submission ABI, the fused entry point and an
// I/O-only kernel that moves the same bytes with no arithmetic (the floor of any kernel with
// this op's memory traffic, launch and DRAM latency included).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/testbed/device.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/model/report.hpp"
#include "products/bench/sol_score.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "harness/testbed/timing.hpp"

namespace rope2d::verify {

inline constexpr int bench_shifts = 4;
inline constexpr std::int64_t bench_shift_step = 128;  // elements: one token, keeps 16-byte alignment

// A `batch x seq_len` problem (head_dim 128, bf16 grads) with the shift slack appended: extra
// elements after the last sequence for randn inputs, extra tokens for layout inputs.
Problem bench_problem(AngleSource src, std::int64_t batch, std::int64_t seq_len, std::uint64_t seed);

// Bytes one call moves on a workload: bf16 grad_cos and grad_sin and float32 idx_theta in,
// float32 grad_idx_theta out, head_dim 128.
double workload_bytes(const Workload& w);
// The SOL-ExecBench anchors of benchmark workload k, scaled by its bytes (sol_score.hpp).
SolAnchors workload_anchors(std::size_t k);

using BackwardCall = std::function<std::remove_pointer_t<BackwardFn>>;
using FusedCall = std::function<std::remove_pointer_t<FusedFn>>;

namespace detail {
class EdgeAllocation;
}

class DeviceInputs {
 public:
  // Uploads `p`; the timed calls use its first n elements at each shift.
  DeviceInputs(const Problem& p, std::int64_t n);
  ~DeviceInputs();
  DeviceInputs(const DeviceInputs&) = delete;
  DeviceInputs& operator=(const DeviceInputs&) = delete;

  std::int64_t n() const { return n_; }
  int grad_dtype() const { return grad_dtype_; }  // ROPE2D_GRAD_* of the submission ABI
  bool has_positions() const { return pos_ != nullptr; }
  const void* gc(int run) const;
  const void* gs(int run) const;
  const float* theta(int run) const;
  float* out(int run) const;
  const std::int32_t* positions(int run) const;  // layout problems only
  const float* theta_table() const { return static_cast<const float*>(table_); }

 private:
  void release();
  void* arena_ = nullptr;  // every buffer below lies in this one allocation
  std::unique_ptr<detail::EdgeAllocation> shared_;  // the arena, when shared with a boxed kernel
  void *gc_ = nullptr, *gs_ = nullptr, *theta_ = nullptr, *out_ = nullptr, *pos_ = nullptr, *table_ = nullptr;
  std::int64_t n_ = 0;
  int grad_bytes_ = 2, grad_dtype_ = 0;
};

// One call timed by Timer::time; throws std::runtime_error naming the return code when a call
// fails. A BackwardFn or FusedFn converts to these.
Timing time_backward(Timer& timer, const BackwardCall& fn, const DeviceInputs& d, const TimingOptions& o = {});
Timing time_fused(Timer& timer, const FusedCall& fn, const DeviceInputs& d, const TimingOptions& o = {});
Timing time_io_floor(Timer& timer, const DeviceInputs& d, const TimingOptions& o = {});

// Timed calls that are judged calls too (a kernel cannot take an accurate path while judged
// and a fast one while timed): every call's output is pre-filled outside the timed interval
// (prefill.hpp: the first call at each of the bench_shifts addresses, a warm-up call, with
// varied NaNs, those left unwritten poisoned; later calls with finite or mixed values); the
// first call at each address is read back and compared with the reference of its window of
// `p` (the problem `d` was made from) at `gate`; every later call's output, the timed ones
// included, is compared on the device with that first call's at its address, bit for bit,
// after the call's timed interval.
struct JudgedTiming {
  Timing timing;
  Metrics metrics;             // the first calls at each address, merged
  int compared_calls = 0;      // later calls compared with the first at their address
  int differing_calls = 0;     // of those, with other bits
  int first_differing = -1;    // the first such call (0-based, warm-up calls included)
  std::int64_t differing_bytes = 0;

  bool passed(Tier gate, Subnormals s) const { return differing_calls == 0 && metrics.passes(gate, s); }
  std::string describe() const;  // the calls compared, and which differed
};
JudgedTiming time_and_judge_backward(Timer& timer, const BackwardCall& fn, const DeviceInputs& d, const Problem& p, Tier gate,
                                     Subnormals subnormals, const TimingOptions& o = {});
// `rope2d verify --bench`: every benchmark workload timed as `rope2d bench` times the
// project's kernel, its calls judged (time_and_judge_backward): one set per workload
// ("bench/bf16/BxS", set "bench") and the figures as header lines. A call that fails stops
// the benchmark with a line saying so. The score uses the kernel clock (CUPTI, as
// SOL-ExecBench) where there is one, else the events.
struct BenchSets {
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<SetResult> results;
};
BenchSets bench_submission(BackwardFn fn, Tier gate, Subnormals subnormals, std::uint64_t seed);

// Elements [first, first + n) of a problem with host inputs, as a flat problem of its own.
Problem window(const Problem& p, std::int64_t first, std::int64_t n);

}  // namespace rope2d::verify
