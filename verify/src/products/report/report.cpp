// A report's terminal summary, and the list of writers (one per format, each in
// verify/src/products/report/) that write_report runs.
#include "rope2d/verify/products/report_files.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "rope2d/verify/model/mismatch.hpp"
#include "codec/plain_text.hpp"
#include "codec/validate.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

namespace {

// A new format: one file in verify/src/products/report/ and one line here.
constexpr ReportWriter writers[] = {
    {"report.json", render_json},
    {"report.md", render_markdown},
    {"report.html", render_html},
    {"junit.xml", render_junit},
    {"trace.jsonl", render_trace},
    {"error_histogram.svg", render_error_histogram_svg, true},
    {"error_by_angle.svg", render_error_by_angle_svg, true},
};

}  // namespace

std::span<const ReportWriter> report_writers() { return writers; }

std::string summary(const Report& r) {
  std::ostringstream s;
  int passed = 0, incorrect = 0, failed = 0, unsupported = 0, skipped = 0, beyond = 0, beyond_passed = 0;
  for (const auto& x : r.results) {
    const Disposition d = x.disposition(r.gate);
    if (x.beyond_definition) ++beyond, beyond_passed += d == Disposition::passed;
    else (d == Disposition::passed ? passed : d == Disposition::incorrect ? incorrect : d == Disposition::failed ? failed
          : d == Disposition::skipped ? skipped : unsupported)++;
    if (d == Disposition::passed) continue;
    // What a submission or a runner said is shown as text, its later lines indented (plain_text.hpp).
    s << fmt::format("{:<10} {:<34} ", name(d), plain_line(x.name)) << (x.beyond_definition ? "(beyond the definition) " : "");
    if (!x.supported()) s << plain_text(x.not_supported, "    ");
    else if (!x.ran()) s << plain_text(x.error, "    ");
    else if (!x.integrity.empty() && x.integrity != "ok") s << plain_text(x.integrity, "    ");
    else s << fmt::format("{} of {} over {}; max {:.3g} x 2^-24 S", x.metrics.over[static_cast<int>(r.gate)], x.metrics.count,
                          name(r.gate), x.metrics.max_scaled);
    s << "\n";
    if (x.ran() && !x.metrics.passes(r.gate))
      for (const std::string& l : mismatch_lines(x.metrics, r.gate, x.shape)) s << "    " << l << "\n";
    for (const auto& f : x.metrics.failures) s << "    " << f.line(plain_line(x.name)) << "\n";
    if (!x.reproduce.empty()) s << "    reproduce: " << plain_line(x.reproduce) << "\n";
  }
  if (r.gate != Tier::solexecbench) {
    int ran = 0, official = 0;
    for (const auto& x : r.results)
      if (x.ran()) ++ran, official += x.passed(Tier::solexecbench);
    if (ran > 0) s << fmt::format("SOL-ExecBench's rules (tier solexecbench): {} of {} sets pass (report.md says where they differ)\n", official, ran);
  }
  s << fmt::format("{}: {} passed, {} incorrect, {} failed to run", name(r.verdict()), passed, incorrect, failed);
  if (unsupported) s << fmt::format(", {} not supported", unsupported);
  if (skipped) s << fmt::format(", {} skipped", skipped);
  s << fmt::format(" (gate: {})\n", name(r.gate));
  if (beyond)
    s << fmt::format("beyond the definition (not in the verdict): {} of {} sets passed\n", beyond_passed, beyond);
  return s.str();
}

void check_report_folder(const std::string& dir, const std::string& label) {
  require_output_folder(dir, label);
  const std::string inside = label.empty() ? "" : label + " " + dir + ":";
  for (const ReportWriter& w : report_writers()) require_output_file((fs::path(dir) / w.file).string(), inside);
}

void write_report(const std::string& dir_s, const Report& r) {
  const fs::path dir(dir_s);
  check_report_folder(dir_s);
  make_output_folder(dir_s);
  for (const ReportWriter& w : report_writers())
    if (r.has_plot_data || !w.needs_plot_data) write_file_atomic((dir / w.file).string(), {w.render(r)});
}

}  // namespace rope2d::verify
