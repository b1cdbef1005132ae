// A verification report, the noun: each set's result and the run's verdict. Every result gets
// a cause (status.hpp) and from it a disposition: passed, incorrect (accuracy or integrity),
// failed (did not build/load/run), not supported or skipped (no GPU), and a SOL-ExecBench
// status. Its files (Markdown, HTML, JSON, JUnit, trace, plots) are written and read back by
// the products floor: rope2d/verify/products/report_files.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/verify/model/disposition.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/status.hpp"

namespace rope2d::verify {

struct SetResult {
  std::string name;       // the problem
  std::string set;        // its family: randn, layout, long, near_axis, odd, ...
  std::optional<ref::Dtype> dtype;  // grad dtype; none for a set of no one dtype (a run that died at its start)
  Metrics metrics;
  std::string integrity;  // "ok", a description of what failed, or "" when not run on a device
  std::string error;      // why it could not run
  std::string not_supported;  // why it was not run: the submission does not offer it (not a failure)
  std::string reproduce;  // a command that reruns exactly this case
  double kernel_ms = 0;
  std::vector<std::int64_t> shape;  // the problem's shape ([batch, seq_len, head_dim] or [n]); empty when unknown
  // Beyond the problem the solution declares (a grad dtype its definition does not have, asked
  // for with --grad-dtypes): judged and reported apart, never part of the verdict.
  bool beyond_definition = false;
  // What kind of reason `error` is (status.hpp's error_cause: runtime, build, timeout, shape,
  // dtype, verifier, no_gpu), and what kind of finding `integrity` holds (finding_cause:
  // integrity, contract, or numerical for a golden set's stored results).
  Cause error_cause = Cause::runtime;
  Cause finding_cause = Cause::integrity;

  bool supported() const { return not_supported.empty(); }
  bool ran() const { return error.empty() && supported(); }
  bool passed(Tier gate) const { return ran() && (integrity.empty() || integrity == "ok") && metrics.passes(gate); }
  // Why it has its disposition: not supported, else the error's kind, else the findings' kind,
  // else the metrics under the gate. A kind that is not of its field counts as runtime or
  // integrity (a result never passes through a mislabelled field).
  Cause cause(Tier gate) const {
    if (!supported()) return Cause::not_supported;
    if (!ran()) return verify::error_cause(error_cause) ? error_cause : Cause::runtime;
    if (!integrity.empty() && integrity != "ok") return verify::finding_cause(finding_cause) ? finding_cause : Cause::integrity;
    return metrics.passes(gate) ? Cause::passed : Cause::numerical;
  }
  Disposition disposition(Tier gate) const { return verify::disposition(cause(gate)); }
  // The error and its kind at once, where a set cannot be judged.
  void fail(std::string why, Cause kind = Cause::runtime) {
    error = std::move(why);
    error_cause = kind;
  }
};

// A set's grad dtype as every report and the worker's messages write it: its name, "" for none
// (ref::parse_dtype reads both back).
inline std::string_view dtype_name(const std::optional<ref::Dtype>& d) { return d ? ref::name(*d) : std::string_view(); }

// Now as "2026-01-31T12:00:00Z".
std::string utc_timestamp();

struct Report {
  std::string title;
  std::vector<std::pair<std::string, std::string>> header;  // submission hash, flags, GPU, ...
  Tier gate = Tier::float32_bound;
  std::vector<std::string> warnings;
  std::vector<SetResult> results;
  std::string timestamp = utc_timestamp();  // when the run began (ISO 8601, UTC)
  // Whether results carry their error histograms (false for a report read back from a
  // report.json written before they were recorded: its plots cannot be drawn again).
  bool has_plot_data = true;
  // Whether results carry their subnormal modes and accepted overflows (false for a report
  // read back from a report.json written before they were recorded).
  bool has_subnormal_data = true;

  Disposition verdict() const;  // passed | incorrect | failed | skipped (every set in it skipped: no GPU)
  int exit_code() const;        // 0 passed, 1 incorrect, 3 failed, 4 skipped
};

// The counts of every set that ran, merged: the run's subnormal mode and accepted overflows.
Metrics overall(const Report& r);

}  // namespace rope2d::verify
