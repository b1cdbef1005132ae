// The one table from a result's cause to its disposition and SOL-ExecBench status (status.hpp),
// with the names report.json writes. A cause or status without a case here fails to compile
// (-Werror=switch).
#include "rope2d/verify/model/status.hpp"

#include <stdexcept>
#include <string>

namespace rope2d::verify {

CauseRow cause_row(Cause c) {
  using D = Disposition;
  using S = SxbStatus;
  switch (c) {
    case Cause::passed: return {D::passed, S::passed, "judged, within the gate"};
    case Cause::numerical: return {D::incorrect, S::incorrect_numerical, "judged, outputs beyond the gate's tier"};
    // SOL-ExecBench's REWARD_HACK is its integrity checks (monkey-patching, threads, lazy
    // outputs); rope2d's are the same kind: the outputs cannot be trusted to be the kernel's.
    case Cause::integrity: return {D::incorrect, S::reward_hack, "an integrity check failed: the outputs are not the call's own work"};
    // Not a cheat and not a wrong element of a judged output: the kernel fails under a call
    // the benchmark may make (an empty tensor, a stream shared with other work, a graph).
    case Cause::contract: return {D::incorrect, S::runtime_error, "the call contract broken: fails under a call the benchmark may make"};
    case Cause::shape: return {D::failed, S::incorrect_shape, "an output of the wrong shape or size"};
    case Cause::dtype: return {D::failed, S::incorrect_dtype, "an output of the wrong dtype"};
    case Cause::build: return {D::failed, S::compile_error, "did not compile or build"};
    case Cause::timeout: return {D::failed, S::timeout, "a wall-clock limit ran out (call, build or runner)"};
    case Cause::runtime: return {D::failed, S::runtime_error, "did not load or run: the call failed, crashed or its process died"};
    // SOL-ExecBench's INVALID_REFERENCE is its reference failing to run: here the verifier's
    // own reference or its GPU-against-CPU cross-check, never the submission's doing.
    case Cause::verifier: return {D::failed, S::invalid_reference, "the verifier's reference or cross-check failed"};
    case Cause::not_supported: return {D::not_supported, std::nullopt, "a grad dtype the submission need not offer: no trace line"};
    // Where SOL-ExecBench's harness finds no GPU it runs on the CPU, and a CUDA call fails:
    // RUNTIME_ERROR. The log says that nothing was judged and why.
    case Cause::no_gpu: return {D::skipped, S::runtime_error, "no GPU: the kernel runs were skipped, nothing judged"};
  }
  throw std::logic_error("cause_row: not a cause");  // not reached: every value is a case above
}

bool error_cause(Cause c) {
  switch (c) {
    case Cause::shape:
    case Cause::dtype:
    case Cause::build:
    case Cause::timeout:
    case Cause::runtime:
    case Cause::verifier:
    case Cause::no_gpu: return true;
    case Cause::passed:
    case Cause::numerical:
    case Cause::integrity:
    case Cause::contract:
    case Cause::not_supported: return false;
  }
  return false;
}

bool finding_cause(Cause c) { return c == Cause::numerical || c == Cause::integrity || c == Cause::contract; }

std::string_view name(Cause c) {
  switch (c) {
    case Cause::passed: return "passed";
    case Cause::numerical: return "numerical";
    case Cause::integrity: return "integrity";
    case Cause::contract: return "contract";
    case Cause::shape: return "shape";
    case Cause::dtype: return "dtype";
    case Cause::build: return "build";
    case Cause::timeout: return "timeout";
    case Cause::runtime: return "runtime";
    case Cause::verifier: return "verifier";
    case Cause::not_supported: return "not supported";
    case Cause::no_gpu: return "no gpu";
  }
  return "?";
}

std::string_view name(SxbStatus s) {
  switch (s) {
    case SxbStatus::passed: return "PASSED";
    case SxbStatus::invalid_reference: return "INVALID_REFERENCE";
    case SxbStatus::incorrect_shape: return "INCORRECT_SHAPE";
    case SxbStatus::incorrect_numerical: return "INCORRECT_NUMERICAL";
    case SxbStatus::incorrect_dtype: return "INCORRECT_DTYPE";
    case SxbStatus::runtime_error: return "RUNTIME_ERROR";
    case SxbStatus::compile_error: return "COMPILE_ERROR";
    case SxbStatus::timeout: return "TIMEOUT";
    case SxbStatus::reward_hack: return "REWARD_HACK";
  }
  return "?";
}

}  // namespace rope2d::verify
