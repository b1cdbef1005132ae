// Verification reports: Markdown for people, JSON for tools, JUnit XML for CI, and two SVG
// plots (error histogram per grad dtype, worst error by angle binade). Every result gets a
// disposition: passed, incorrect (accuracy or integrity), or failed (did not build/load/run).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rope2d/verify/metrics.hpp"

namespace rope2d::verify {

struct SetResult {
  std::string name;       // the problem
  std::string set;        // its family: randn, layout, long, near_axis, odd, ...
  std::string dtype;      // grad dtype
  Metrics metrics;
  std::string integrity;  // "ok", a description of what failed, or "" when not run on a device
  std::string error;      // why it could not run
  std::string reproduce;  // a command that reruns exactly this case
  double kernel_ms = 0;
  bool not_supported = false;  // the submission declined this grad dtype (ROPE2D_ERR_UNSUPPORTED_DTYPE)

  bool ran() const { return error.empty(); }
  // A declined dtype neither fails nor passes the verdict; its disposition says so.
  bool passed(Tier gate) const {
    return not_supported || (ran() && (integrity.empty() || integrity == "ok") && metrics.passes(gate));
  }
  std::string disposition(Tier gate) const {
    return not_supported ? "not supported" : !ran() ? "failed" : passed(gate) ? "passed" : "incorrect";
  }
};

struct Report {
  std::string title;
  std::vector<std::pair<std::string, std::string>> header;  // submission hash, flags, GPU, ...
  Tier gate = Tier::strict;
  std::vector<std::string> warnings;
  std::vector<SetResult> results;

  std::string verdict() const;  // passed | incorrect | failed
  int exit_code() const;        // 0 passed, 1 incorrect, 3 failed
};

// Writes report.md, report.json, junit.xml, error_histogram.svg, error_by_angle.svg into
// dir (created), each atomically.
void write_report(const std::string& dir, const Report& r);

// A short human summary for the terminal (one line per set that did not pass, then totals).
std::string summary(const Report& r);

}  // namespace rope2d::verify
