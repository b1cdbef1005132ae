// The call contract of the submission ABI, checked by mechanism rather than by a list of known
// bugs: n == 0 writes nothing, two calls in flight at once (on two streams, and from two host
// threads) on different data both come out right, and the call can be captured in a CUDA
// graph (no device-wide synchronisation, allocation or host read) and replayed on fresh inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/testbed/device.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/model/report.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

// One judged SetResult per check, named contract/<check>/<dtype>. A broken contract is an
// integrity finding ("contract violation: ..."); a declined dtype is not supported.
// `watch(name, true)` before a check's GPU work and `watch(name, false)` after, so that a
// supervisor can time a call that hangs. Outputs are judged as the suite's are (gate, subnormals).
std::vector<SetResult> contract_checks(BackwardFn fn, ref::Dtype d, Tier gate, Subnormals subnormals, std::uint64_t seed,
                                       const std::function<void(const std::string&, bool)>& watch = {});


}  // namespace rope2d::verify
