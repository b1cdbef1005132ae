// Testbed runs as judge entries (device_judge.hpp).
#include "rope2d/verify/device_judge.hpp"

#include <utility>

namespace rope2d::verify {

CallResult call_result(DeviceRun run) {
  CallResult c;
  c.error = run.integrity.call_error;
  c.context_lost = run.integrity.context_lost;
  c.declined = run.integrity.declined;
  if (!run.integrity.ok() && c.error.empty()) c.findings.push_back(run.integrity.describe());
  c.out = std::move(run.out);
  c.kernel_ms = run.kernel_ms;
  return c;
}

RunChecks checks_for_round(int round) { return RunChecks{.stream = round == 0, .repeat = true, .inputs = round == 0}; }

Entry plain_entry(Testbed& bed, BackwardFn fn) {
  return {"", [&bed, fn](const Problem& p, int round) { return call_result(bed.run(fn, p, checks_for_round(round))); }, {}};
}

Entry fused_entry(Testbed& bed, FusedFn fn) {
  return {"fused:", [&bed, fn](const Problem& p, int round) { return call_result(bed.run_fused(fn, p, checks_for_round(round))); },
          [](const Problem& p) { return !p.positions.empty(); }};
}

}  // namespace rope2d::verify
