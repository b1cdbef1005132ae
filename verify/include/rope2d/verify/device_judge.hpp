// The GPU testbed as entries of the judge: a kernel's plain and fused entry points, run with
// every integrity check on the first round and the repeat check on every round.
#pragma once

#include "rope2d/verify/device.hpp"
#include "rope2d/verify/judge.hpp"

namespace rope2d::verify {

// A testbed run as the judge reads it.
CallResult call_result(DeviceRun run);

// The checks of round r: the stream and input checks on round 0 only (later rounds reuse the
// buffers, which is what catches a kernel that caches results), the repeat check always.
RunChecks checks_for_round(int round);

Entry plain_entry(Testbed& bed, BackwardFn fn);
// Applies to problems with positions (layout sets).
Entry fused_entry(Testbed& bed, FusedFn fn);

}  // namespace rope2d::verify
