// One set's result built call by call (judge.hpp's SetTally): a call's outcome, then each
// round's outputs compared, closed as one round and merged.
#include <stdexcept>

#include "rope2d/verify/judge/judge.hpp"

namespace rope2d::verify {

SetTally::SetTally(SetResult start, ref::Dtype grad_dtype, Tier gate, Subnormals subnormals, std::size_t max_failures)
    : r_(std::move(start)), dtype_(grad_dtype), gate_(gate), subnormals_(subnormals), max_failures_(max_failures) {}

bool SetTally::outcome(const CallResult& run) {
  if (run.declined) {
    mark_declined(r_, dtype_);
    return false;
  }
  if (run.context_lost || !run.error.empty()) {
    r_.fail(run.error, run.error_cause);
    return false;
  }
  // Keep every distinct finding across rounds (later rounds skip some checks).
  for (const std::string& f : run.findings) add_finding(f, run.finding_cause);
  r_.kernel_ms = std::max(r_.kernel_ms, run.kernel_ms);
  return true;
}

void SetTally::add_finding(const std::string& what, Cause kind) {
  if (integrity_.find(what) == std::string::npos) integrity_ += (integrity_.empty() ? "" : "; ") + what;
  // An integrity finding says the outputs are not the call's own: it outweighs a broken contract.
  if (kind == Cause::integrity) finding_cause_ = Cause::integrity;
}

const Metrics& SetTally::round(const Problem& p, const Expected& x, const float* out) {
  if (p.device_only) throw std::logic_error(r_.name + ": an entry that does not judge was given a problem made for the GPU");
  return round(compare(p, x, out, gate_, max_failures_, subnormals_));
}

const Metrics& SetTally::round(Metrics judged) {
  last_ = std::move(judged);
  last_.close_round();  // SOL-ExecBench judges each round of fresh inputs on its own
  r_.metrics.merge(last_, max_failures_);
  return last_;
}

SetResult SetTally::finish() const {
  SetResult r = r_;
  r.integrity = integrity_.empty() ? "ok" : integrity_;
  r.finding_cause = finding_cause_;
  return r;
}

}  // namespace rope2d::verify
