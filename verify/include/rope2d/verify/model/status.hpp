// Why a set has its disposition (a Cause), and the one table from causes to SOL-ExecBench's
// evaluation statuses (core/data/trace.py's EvaluationStatus). trace.jsonl, report.json and
// junit.xml take a result's status from sxb_status() and nowhere else; docs/solexecbench.md
// shows the same table. A cause without a row fails to compile (-Werror=switch, status.cpp).
#pragma once

#include <optional>
#include <string_view>

#include "rope2d/verify/model/disposition.hpp"

namespace rope2d::verify {

enum class Cause {
  passed,         // judged: within the gate
  numerical,      // judged: outputs beyond the gate's tier (a golden set's stored results too)
  integrity,      // judged: an integrity check failed (inputs or guard bands written, stale or
                  // unwritten output served, stream or device switched, threads left, ...)
  contract,       // judged: the call contract broken (n == 0, two calls in flight, graph capture)
  shape,          // an output of the wrong shape or size
  dtype,          // an output of the wrong dtype
  build,          // did not compile or build (nvcc, a Python source's byte-compile)
  timeout,        // a wall-clock limit ran out: a call, the build, the solution's runner
  runtime,        // did not load or run: the call failed or crashed, the process died
  verifier,       // the verifier's own reference or cross-check failed: nothing of the submission's
  not_supported,  // declined a grad dtype it need not offer (not a failure)
  no_gpu,         // no GPU: the kernel runs were skipped, nothing judged
};

inline constexpr Cause all_causes[] = {Cause::passed,   Cause::numerical, Cause::integrity, Cause::contract,
                                       Cause::shape,    Cause::dtype,     Cause::build,     Cause::timeout,
                                       Cause::runtime,  Cause::verifier,  Cause::not_supported, Cause::no_gpu};

// SOL-ExecBench's EvaluationStatus, in the order of its enum.
enum class SxbStatus {
  passed,
  invalid_reference,
  incorrect_shape,
  incorrect_numerical,
  incorrect_dtype,
  runtime_error,
  compile_error,
  timeout,
  reward_hack,
};

inline constexpr SxbStatus all_sxb_statuses[] = {
    SxbStatus::passed,        SxbStatus::invalid_reference, SxbStatus::incorrect_shape,
    SxbStatus::incorrect_numerical, SxbStatus::incorrect_dtype, SxbStatus::runtime_error,
    SxbStatus::compile_error, SxbStatus::timeout,           SxbStatus::reward_hack};

// One row of the table: what a cause means to rope2d and to SOL-ExecBench.
struct CauseRow {
  Disposition disposition;
  std::optional<SxbStatus> status;  // nullopt: no Trace line (a set not supported has no status)
  std::string_view why;             // the reason for the row, as docs/solexecbench.md gives it
};
CauseRow cause_row(Cause c);

inline Disposition disposition(Cause c) { return cause_row(c).disposition; }
inline std::optional<SxbStatus> sxb_status(Cause c) { return cause_row(c).status; }

// Whether a cause is a reason a set could not be judged (it goes with SetResult::error), or
// one of a judged set's findings (it goes with SetResult::integrity).
bool error_cause(Cause c);
bool finding_cause(Cause c);

// "passed", "numerical", ..., "no gpu": the text report.json writes.
std::string_view name(Cause c);
// "PASSED", "INCORRECT_NUMERICAL", ...: SOL-ExecBench's own spelling.
std::string_view name(SxbStatus s);

}  // namespace rope2d::verify
