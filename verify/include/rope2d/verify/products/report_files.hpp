// A report's files: Markdown and a self-contained HTML page for people, JSON for tools, JUnit
// XML for CI, SOL-ExecBench's trace lines, and two SVG plots (error histogram per grad dtype,
// worst error by angle binade); report.json read back; the terminal summary. Each format is
// one writer in report_writers(); a new format is one more (verify/src/products/report/).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rope2d/verify/model/report.hpp"

namespace rope2d::verify {

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

// A short human summary for the terminal (one line per set that did not pass, then totals).
std::string summary(const Report& r);

}  // namespace rope2d::verify
