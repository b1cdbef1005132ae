// verify(plan, harness, observer): one submission judged, whatever its kind, the one pipeline
// that `rope2d verify`'s GPU worker runs for every harness (harness/harness.hpp), and the C API's
// rope2d_verify for a caller's own function (harness/caller_harness.cpp). The harness is
// made ready, says what it is, hands the judge its entries; the suite's sets are judged through
// the one Judge; a harness with a C ABI entry point gets the call contract, the --huge sets and
// the benchmark too (CAbiChecks, built with CUDA); the report is written. The observer hears
// each step, as the worker forwards them to its parent (codec/worker_protocol.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/harness.hpp"
#include "harness/testbed/device.hpp"
#include "rope2d/verify/judge/run_options.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/model/report.hpp"

namespace rope2d::verify {

// Sets a check adds to the report, with header lines of its own (the benchmark's figures).
struct AddedSets {
  std::vector<harness::HeaderLine> header;
  std::vector<SetResult> results;
};

// The checks that call a C ABI entry point directly (harness::CAbi): the call contract, the
// --huge sets and the benchmark. Built with CUDA only (c_abi_checks.cpp: c_abi_checks()).
class CAbiChecks {
 public:
  virtual ~CAbiChecks() = default;
  using Watch = std::function<void(const std::string& name, bool calling)>;
  virtual std::vector<SetResult> contract(const harness::CAbi& abi, ref::Dtype d, Tier gate, Subnormals subnormals,
                                          std::uint64_t seed, const Watch& watch) const = 0;
  virtual std::vector<SetResult> huge(const harness::CAbi& abi, const SuiteOptions& o, Tier gate, Subnormals subnormals) const = 0;
  virtual AddedSets bench(const harness::CAbi& abi, Tier gate, Subnormals subnormals, std::uint64_t seed) const = 0;
};
const CAbiChecks& c_abi_checks();

// What is judged and how.
struct Plan {
  std::vector<ProblemSpec> specs;
  RunOptions run;             // the gate (run.tier), seed, rounds, IEEE subnormals, the worst lists, grad dtypes; each reproduce line
  DeviceInfo device;          // the machine's lines in the header
  bool device_inputs = true;  // the counter-based sets made and judged on the GPU where the harness can (not --cpu-judge)
  bool contract = true;       // the call contract after the suite (not with --only)
  bool huge = false;          // --huge
  bool bench = false;         // --bench
  // A solution's definition (grad dtypes, head_dim): the sets outside it are marked beyond it.
  std::vector<ref::Dtype> definition_dtypes;
  std::int64_t definition_head_dim = 0;
  std::string out_dir;                  // where the report is written ("": not written)
  // Each set's reproduce line; none: `rope2d verify`'s (reproduce_line of run). A caller's own
  // (the C API's rope2d_verify) replays a set its own way, or gives "" (no line).
  std::function<std::string(const std::string& set)> reproduce;
  const CAbiChecks* checks = nullptr;   // none: no contract, --huge or benchmark sets
};

// What verify() says as it goes; each default does nothing.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void device(const std::string& name) { (void)name; }  // the harness is prepared; judging starts
  virtual void start(const std::string& name, std::size_t index, std::size_t count) { (void)name, (void)index, (void)count; }
  virtual void call(const std::string& name) { (void)name; }  // a call begins (a supervisor's time limit runs)
  virtual void called() {}
  virtual void end(const SetResult& r) { (void)r; }  // a set's result
  // The report, written; `judged` false when the submission could not be made ready.
  virtual void done(const Report& rep, bool judged) { (void)rep, (void)judged; }
};

// Judges the submission of `harness` as `plan` says and returns its report (written to
// plan.out_dir): every set of plan.specs in order, then the added checks.
Report verify(const Plan& plan, harness::Harness& harness, Observer& observer);

// The machine's lines of a report's header: the GPU, driver and runtime, the reference, the
// seeds and the subnormal rule.
std::vector<harness::HeaderLine> machine_lines(const Plan& plan);

}  // namespace rope2d::verify
