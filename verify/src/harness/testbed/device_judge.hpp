// The GPU testbed as entries of the judge: a kernel's plain and fused entry points, run with
// every integrity check on the first round and the repeat check on every round.
#pragma once

#include <optional>

#include "harness/testbed/device.hpp"
#include "rope2d/verify/judge/judge.hpp"

namespace rope2d::verify {

// A testbed run as the judge reads it.
CallResult call_result(DeviceRun run);

// The checks of round r: the stream and input checks on round 0 only (later rounds reuse the
// buffers, which is what catches a kernel that caches results), the repeat check always.
RunChecks checks_for_round(int round);

// How the entries judge a Problem::device_only problem (Judge::device_inputs): on the GPU
// (gpu_check.hpp) while the inputs and the output are on the device; the elements the GPU
// hands back settled on the CPU (settle); the whole problem on the CPU, from the counter,
// where more failures or deferred elements came back than the pass keeps (so the FAIL lines
// are the first ones by index, as compare() gives them); and every round a sample of
// `cross_samples` elements cross-checked against the CPU (Testbed::cross_check): a difference
// throws (a verifier error, not a verdict). The judge's settings, copied.
struct DeviceJudging {
  Tier gate = Tier::float32_bound;
  Subnormals subnormals = Subnormals::flush_allowed;
  std::size_t max_failures = max_failures_kept;  // FAIL lines per set, as the judge keeps them
  int cross_samples = 1024;
};

// A device_only problem judged as DeviceJudging says, through one call of the testbed: the
// one place where the GPU comparison plugs into the device path.
CallResult judged_on_gpu(Testbed& bed, const Problem& p, const DeviceJudging& how,
                         const std::function<DeviceRun(const Testbed::OutputJudge&)>& run);

// Without `gpu` (or for problems with host inputs) the judge compares the outputs itself. The
// entry keeps its own copy of `gpu`: it outlives the caller's settings (a harness makes its
// entries in one call and the judge calls them long after).
Entry plain_entry(Testbed& bed, BackwardFn fn, std::optional<DeviceJudging> gpu = std::nullopt);
// Applies to problems with positions (layout sets).
Entry fused_entry(Testbed& bed, FusedFn fn, std::optional<DeviceJudging> gpu = std::nullopt);

}  // namespace rope2d::verify
