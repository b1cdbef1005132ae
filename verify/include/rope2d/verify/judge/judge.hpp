// The one judging pipeline: make a problem's inputs (fresh each round, in the same buffers),
// compute the reference, get the kernel's outputs with its integrity findings, compare, merge
// over rounds, and return the set's result with its reproduce line. verify's worker, the C API's
// rope2d_verify (the Python API's callable), check, the solution runner, the --huge sets and the
// GPU properties judge through Judge; they differ only in where outputs come from (an Entry)
// and where problems come from (a CaseSource: generated, the worst set's lists, a file's
// tensors, a huge problem's sample). Where the caller hands in one output to judge (the C
// ABI's rope2d_check), one run gives several calls' outputs (the contract checks) or the calls
// are the benchmark's timed ones (products/bench), a SetTally takes each outcome and round the same way. The angle sweep (sweep.hpp) is
// not a set of rounds: it settles 2^32 patterns chunk by chunk on the GPU and merges chunks.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/model/report.hpp"
#include "rope2d/verify/judge/run_options.hpp"

namespace rope2d::verify {

// What one call of a kernel gave: outputs, or why there are none.
struct CallResult {
  std::vector<float> out;
  std::string error;                  // the call failed or could not run: no outputs
  Cause error_cause = Cause::runtime; // its kind (status.hpp): runtime, timeout, shape, dtype, ...
  std::vector<std::string> findings;  // integrity checks that failed, in words
  Cause finding_cause = Cause::integrity;  // their kind: integrity, or contract (the call contract's checks)
  bool context_lost = false;          // nothing more can run in this process
  bool declined = false;              // the kernel declined the grad dtype (ROPE2D_ERR_UNSUPPORTED_DTYPE)
  double kernel_ms = 0;
  // Set when the entry judged the outputs itself (the device path's GPU comparison of a
  // Problem::device_only problem): the judge merges these instead of comparing `out`.
  std::optional<Metrics> metrics;
  // Seconds of the call spent judging (in Phases::gpu_check, settle, cross_check, not gpu).
  double check_s = 0, settle_s = 0, cross_s = 0;
  bool whole_on_cpu = false;  // `metrics` came from the CPU judge over the whole problem (settle_s)
};

// One entry point of a kernel, judged as one set: `call` runs it on round r's problem.
struct Entry {
  std::string prefix;  // prepended to the problem's name: "" plain, "fused:" fused
  std::function<CallResult(const Problem&, int round)> call;
  std::function<bool(const Problem&)> applies;  // empty: every problem
};

// Case, CaseSource and CaseSources: problem.hpp.

// Where a run's wall time goes, in seconds, for the report header.
struct Phases {
  double inputs = 0, reference = 0, gpu = 0, compare = 0;
  // The device path's GPU-judged sets: reference and comparison on the GPU, the CPU's judging
  // of the elements handed back, the per-round sample cross-checked against the CPU.
  double gpu_check = 0, settle = 0, cross_check = 0;
  std::int64_t gpu_sets = 0, cpu_sets = 0;  // set rounds judged each way
  std::int64_t whole_on_cpu = 0;            // GPU-made set rounds judged whole on the CPU (in settle)
  template <class F>
  auto time(double& into, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    auto result = f();
    into += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
};

// One set's result built call by call: the one place where a call's outcome (declined, failed,
// integrity findings) and its outputs become the set's result. Each round's outputs are
// compared with the reference (or come judged), closed as one round and merged. Judge keeps
// one per entry; the paths whose calls Judge does not make feed one themselves: the C ABI's
// rope2d_check (one output its caller hands in), the contract checks (one GPU run gives the
// outputs of two calls on two problems at once) and the benchmark (each timed workload's first
// call at each address judged as one round: products/bench/bench.cpp).
class SetTally {
 public:
  SetTally(SetResult start, ref::Dtype grad_dtype, Tier gate, Subnormals subnormals = Subnormals::flush_allowed,
           std::size_t max_failures = max_failures_kept);
  // A call's outcome: declined (not supported, or failed for bf16) or failed, then false (no
  // outputs to judge); else its findings kept once each across rounds, its time, and true.
  bool outcome(const CallResult& run);
  // A finding of kind `kind` (integrity or contract; integrity wins when both are found).
  void add_finding(const std::string& what, Cause kind = Cause::integrity);
  // One round: outputs `out` of p compared with p's reference x, or metrics the call judged
  // itself; closed as one round, merged, and returned.
  const Metrics& round(const Problem& p, const Expected& x, const float* out);
  const Metrics& round(Metrics judged);
  bool failed() const { return !r_.error.empty(); }
  void fail(const std::string& why, Cause kind = Cause::runtime) { r_.fail(why, kind); }
  // The result so far, its integrity "ok" or the findings.
  SetResult finish() const;

 private:
  SetResult r_;
  ref::Dtype dtype_;
  Tier gate_;
  Subnormals subnormals_;
  std::size_t max_failures_;
  std::string integrity_;
  Cause finding_cause_ = Cause::contract;  // the kind of integrity_ (none found yet: the weakest)
  Metrics last_;
};

class Judge {
 public:
  Judge(Tier gate, int rounds) : gate_(gate), rounds_(rounds) {}
  ~Judge();
  Judge(const Judge&) = delete;
  Judge& operator=(const Judge&) = delete;

  // Around every call, for a supervisor's per-call time limit and progress.
  std::function<void(const std::string& set)> on_call;
  std::function<void()> on_called;
  // When set, every result gets the reproduce line of these options.
  const RunOptions* reproduce = nullptr;
  // Stop judging a set at its first failed call (outputs of later rounds are then not read).
  bool stop_set_on_error = false;
  // ieee: an element passes only within bound of the IEEE evaluation (no flushed alternatives).
  Subnormals subnormals = Subnormals::flush_allowed;
  // Sets with cases of their own (judge(spec, entries) takes them from here, not from
  // make_problem); empty: every set generated.
  CaseSources sources;
  // Counter-based sets (counter_source) are made without host inputs or a CPU reference
  // (Problem::device_only): every entry must judge them itself (CallResult::metrics). The
  // device path sets it, where the entries judge on the GPU.
  bool device_inputs = false;
  Phases phases;
  // The set judged after the next judge(spec, entries) call, if known: its first round's case
  // is made in the background during that call's last round (used once, then cleared).
  const ProblemSpec* next = nullptr;

  // Fresh inputs of spec.round(r) for each round, the reference computed here (or the cases of
  // sources(spec), where it gives some). One result per entry that applied to the problem, in order.
  std::vector<SetResult> judge(const ProblemSpec& spec, const std::vector<Entry>& entries);
  // The same with the cases from `cases` (stored golden problems, sweep chunks).
  std::vector<SetResult> judge(const ProblemSpec& spec, const CaseSource& cases, const std::vector<Entry>& entries);

  Tier gate() const { return gate_; }
  bool context_lost() const { return lost_; }

 private:
  struct Made {
    Case c;
    double inputs = 0, reference = 0;  // seconds
  };
  // A case's inputs and reference, into the buffers of `c` (their capacity kept).
  static Made make_case(const ProblemSpec& s, Case c, bool device_inputs);
  CaseSource own_cases(const ProblemSpec& s) const { return sources ? sources(s) : CaseSource{}; }
  Case take_case(const ProblemSpec& s);
  void make_ahead(const ProblemSpec& s);
  Case spare();
  void recycle(Case c);

  Tier gate_;
  int rounds_;
  bool lost_ = false;
  std::vector<Case> pool_;  // judged cases whose buffers the next cases reuse
  ProblemSpec ahead_spec_;
  std::future<Made> ahead_;  // the case being made in the background (last member: joined first)
};

// A set whose call returned ROPE2D_ERR_UNSUPPORTED_DTYPE: "not supported" for fp16 and fp32,
// failed for bf16 (the benchmark's dtype).
void mark_declined(SetResult& r, ref::Dtype d);

// One result per set that was never judged, each failed for `why` of kind `kind` (an
// error_cause: the submission did not build, no GPU, ...), with its shape: a run that judged
// nothing still reports every set with the status that says why.
std::vector<SetResult> unjudged(const std::vector<ProblemSpec>& specs, const std::string& why, Cause kind);

// The one-line summary of a judged set (verify's progress line and the worker's end message).
std::string outcome(const SetResult& r, Tier gate);

}  // namespace rope2d::verify
