// Verification reports: Markdown and a self-contained HTML page for people, JSON for tools,
// JUnit XML for CI, and two SVG plots (error histogram per grad dtype, worst error by angle
// binade). Every result gets a cause (status.hpp) and from it a disposition: passed, incorrect
// (accuracy or integrity), failed (did not build/load/run), not supported or skipped (no GPU),
// and a SOL-ExecBench status. Each format is one writer in report_writers(); a new format is one more.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rope2d/verify/model/disposition.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/status.hpp"

namespace rope2d::verify {

struct SetResult {
  std::string name;       // the problem
  std::string set;        // its family: randn, layout, long, near_axis, odd, ...
  std::string dtype;      // grad dtype
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

// One output format: the file it writes and how to render a report into it.
struct ReportWriter {
  std::string_view file;
  std::string (*render)(const Report&);
  bool needs_plot_data = false;
};
std::span<const ReportWriter> report_writers();

std::string render_markdown(const Report& r);
// report.html: the same report as one self-contained page (plots inline, no script, nothing
// fetched; products/report/html.cpp).
std::string render_html(const Report& r);
std::string render_json(const Report& r);
std::string render_junit(const Report& r);
// SOL-ExecBench's Trace JSON lines, one per set that ran (products/report/trace.cpp).
std::string render_trace(const Report& r);
std::string render_error_histogram_svg(const Report& r);
std::string render_error_by_angle_svg(const Report& r);

// A report folder's targets: dir a directory or nothing, and every writer's file in it a
// regular file or nothing (require_output_folder, require_output_file), else invalid_argument
// naming label (the option that gave dir, "--out"; empty: the paths alone), the path and what
// is there. Checked before a run's work, so that nothing is run for a report that cannot land.
void check_report_folder(const std::string& dir, const std::string& label = "");

// Writes every writer's file into dir (created), each atomically, after check_report_folder.
void write_report(const std::string& dir, const Report& r);

// Reads a report.json back (as render_json wrote it). Bad input throws std::invalid_argument
// naming the file, the field, what was expected and what was found.
Report read_report_json(const std::string& path);

// JUnit XML for any run, not only a verifier report (nightly: one suite for its verifier runs,
// one for the sweep, one for regressions). Names and messages may hold any bytes: they are
// made valid XML (invalid UTF-8 and control characters shown as \xNN) and escaped.
enum class Outcome { passed, failure, error, skipped };
struct JUnitCase {
  std::string classname, name;
  Outcome outcome = Outcome::passed;
  std::string message;  // the failure, error or skip reason (an attribute)
  std::string detail;   // longer text: failing elements, a log excerpt (element text)
  double seconds = -1;  // written as time= when >= 0
  std::string type;     // its kind (an attribute of the failure, error or skipped element): a verifier
                        // report's SOL-ExecBench status, status.hpp; empty: none written
};
struct JUnitSuite {
  std::string name;
  std::vector<JUnitCase> cases;
};
JUnitSuite junit_suite(const Report& r);  // one testcase per set
// One suite gives a <testsuite> document, several a <testsuites> holding them.
std::string render_junit(std::span<const JUnitSuite> suites);

// The counts of every set that ran, merged: the run's subnormal mode and accepted overflows.
Metrics overall(const Report& r);

// A short human summary for the terminal (one line per set that did not pass, then totals).
std::string summary(const Report& r);

}  // namespace rope2d::verify
