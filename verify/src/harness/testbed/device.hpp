// The GPU testbed: runs a kernel through the submission ABI on a problem with every integrity
// check: outputs poisoned with NaN, 4 KiB guard bands around every buffer, inputs compared
// after the call, a non-blocking stream whose earlier work must finish before the kernel runs,
// a second call compared bit for bit, and buffers kept across calls (so a kernel that caches
// results by address sees fresh inputs at the same addresses). No CUDA header is needed here:
// the entry points' types come from the ABI header, which stands without it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/model/problem.hpp"

namespace rope2d::verify {

using BackwardFn = rope2d_backward_fn;
using FusedFn = rope2d_backward_fused_fn;

struct DeviceInfo {
  bool available = false;
  std::string reason;  // why not, when unavailable
  std::string name;
  int driver_version = 0, runtime_version = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  double memory_gib = 0;
};

// Never throws and never aborts: without a driver or a GPU it says so in `reason`.
DeviceInfo probe_device();
int device_count();  // the CUDA devices this process sees; 0 without a driver

struct Integrity {
  std::string call_error;        // the ABI call's return code or a CUDA error after it
  bool inputs_unchanged = true;
  bool guards_intact = true;     // nothing written outside the output
  bool stream_respected = true;  // queued work on the stream finished before the kernel ran
  bool deterministic = true;     // a second call gave the same bits
  bool context_lost = false;     // a sticky CUDA error: nothing more can run in this process
  bool timed_out = false;        // call_error is a wall-clock limit: a boxed kernel's call did not finish in time
  bool declined = false;         // returned ROPE2D_ERR_UNSUPPORTED_DTYPE (call_error says so)
  // Elements the repeat call (its output pre-filled with finite values, prefill.hpp) left
  // holding its pre-fill where the judged call wrote them.
  std::int64_t left_unwritten = 0;

  bool ok() const {
    return call_error.empty() && inputs_unchanged && guards_intact && stream_respected && deterministic && left_unwritten == 0;
  }
  std::string describe() const;  // the failed checks, in words
};

struct DeviceRun {
  std::vector<float> out;
  Integrity integrity;
  double kernel_ms = 0;  // of the plain call, by CUDA events (one call: not a benchmark)
};

struct RunChecks {
  bool stream = true;
  bool repeat = true;
  bool inputs = true;
};

class Testbed {
 public:
  Testbed();
  ~Testbed();
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  // `judge`, when given, gets the timed call's output on the device with a fresh GPU fill of
  // the inputs the call was given (counter-based problems only; a kernel that wrote its
  // inputs is judged on what it was given) and a stream to work on, before any later call:
  // the device path's GPU comparison. A
  // Problem::device_only problem's inputs are made on the GPU and compared after the call
  // with a fresh GPU fill (there is no host copy).
  using OutputJudge = std::function<void(const DeviceArrays&, void* stream)>;
  DeviceRun run(BackwardFn fn, const Problem& p, const RunChecks& checks = {}, const OutputJudge& judge = {});
  // The fused entry point, on a problem with positions (layout sets); `judge` as for run().
  DeviceRun run_fused(FusedFn fn, const Problem& p, const RunChecks& checks = {}, const OutputJudge& judge = {});
  // The cross-check of a GPU-judged problem: `samples` elements drawn from the counter
  // (the first and last among them) gathered from the device inputs `a`, compared with the
  // CPU's counter bit for bit, and the GPU comparison's certified reference of each compared
  // with the CPU certified path's (compute_expected) bit for bit. "" when all agree, else
  // the first difference in words.
  std::string cross_check(const Problem& p, const DeviceArrays& a, int samples);
  // A counter-based problem's inputs (Problem::counter; run() and run_fused() make them on
  // the GPU) made on the GPU and compared with p's host bits: "" when every bit agrees, else
  // the first difference. run() calls it when a changed input is found, so that the GPU and
  // CPU disagreeing is reported as the verifier's error, not the kernel's.
  std::string counter_mismatch(const Problem& p);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rope2d::verify
