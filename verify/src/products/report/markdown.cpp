// report.md: the verdict, the header, the plots (image links), one table row per set, every failure as a line of hex
// floats with its reproduce command, the worst element of every set, and the tiers.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "codec/markdown_text.hpp"
#include "rope2d/verify/model/mismatch.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace rope2d::verify {

namespace {

std::string tier_cells(const Metrics& m) {
  std::string s;
  for (Tier t : all_tiers) s += fmt::format(" {} |", m.passes(t) ? "pass" : fmt::format("FAIL ({})", m.over[static_cast<int>(t)]));
  return s;
}

void results_table(std::ostringstream& md, const Report& r) {
  md << "| set | dtype | disposition | elements | max err | RMS err | max ulp | correctly rounded |";
  for (Tier t : all_tiers) md << " " << name(t) << " |";
  md << "\n|---|---|---|---|---|---|---|---|";
  for (int i = 0; i < tier_count; ++i) md << "---|";
  md << "\n";
  for (const auto& x : r.results) {
    const Metrics& m = x.metrics;
    md << fmt::format("| {} | {} | {} | {} |", markdown_text(x.name), markdown_text(dtype_name(x.dtype)),
                      std::string(name(x.disposition(r.gate))) + (x.beyond_definition ? " (beyond the definition)" : ""), m.count);
    // A set of no element measured has no error to show: a dash, not zeros and a ratio of one.
    if (m.count) md << fmt::format(" {:.3g} | {:.3g} | {:.3g} | {:.4f} |", m.max_scaled, m.rms_scaled(), m.max_ulp, double(m.correctly_rounded) / m.count);
    else md << " — | — | — | — |";
    if (x.ran()) md << tier_cells(m);
    else
      for (int i = 0; i < tier_count; ++i) md << " — |";
    md << "\n";
  }
}

// Per set where subnormal values took part or an overflow was accepted, and overall.
void subnormal_lines(std::ostringstream& md, const Report& r) {
  md << "\n## Subnormals and overflow\n\n";
  if (!r.has_subnormal_data) {
    md << "Not recorded: this report was written before subnormal modes and accepted overflows were.\n\n";
    return;
  }
  const Metrics all = overall(r);
  md << "Overall: subnormal mode " << all.subnormal_mode() << "; " << all.overflow_accepted
     << " infinities (or FLT_MAX) accepted near overflow.\n\n";
  for (const auto& x : r.results) {
    const Metrics& m = x.metrics;
    const bool saw = m.subnormal_unexplained > 0 || std::any_of(m.subnormal_modes.begin(), m.subnormal_modes.end(), [](auto c) { return c > 0; });
    if (!x.ran() || (!saw && m.overflow_accepted == 0)) continue;
    md << "- " << markdown_text(x.name) << ": " << m.subnormal_mode() << (m.subnormals == Subnormals::ieee ? ", IEEE demanded" : "");
    if (m.overflow_accepted > 0) md << "; overflow accepted " << m.overflow_accepted;
    md << "\n";
  }
}

// SOL-ExecBench's verdict (the solexecbench tier) beside the gate's, and why they differ.
void official_lines(std::ostringstream& md, const Report& r) {
  if (r.gate == Tier::solexecbench) return;
  md << "\n## SOL-ExecBench's rules beside the gate\n\n";
  int differ = 0;
  for (const auto& x : r.results) {
    if (!x.ran()) continue;
    const std::string why = x.metrics.sxb_disagreement(r.gate);
    if (why.empty()) continue;
    ++differ;
    md << "- " << markdown_text(x.name) << ": " << (x.metrics.passes(Tier::solexecbench) ? "passes" : "fails") << " SOL-ExecBench's rules, "
       << (x.metrics.passes(r.gate) ? "passes" : "fails") << " `" << name(r.gate) << "`: " << why << "\n";
  }
  if (differ == 0) md << "The `solexecbench` tier agrees with the gate on every set that ran.\n";
  md << "\nOur tiers judge against the exact result; SOL-ExecBench against PyTorch's float32 evaluation, and it fails "
        "any NaN or Inf, even one the exact result has (docs/solexecbench.md).\n";
}

void failures(std::ostringstream& md, const Report& r) {
  md << "\n## Failures\n\n";
  bool any = false;
  for (const auto& x : r.results) {
    const Disposition d = x.disposition(r.gate);
    if (d == Disposition::passed || d == Disposition::not_supported || d == Disposition::skipped) continue;
    any = true;
    const auto st = sxb_status(x.cause(r.gate));
    md << "### " << markdown_text(x.name) << " — " << name(d) << (st ? " (SOL-ExecBench: " + std::string(name(*st)) + ")" : "") << "\n\n";
    if (!x.ran()) md << "Could not run: " << markdown_prose(x.error) << "\n\n";
    if (!x.integrity.empty() && x.integrity != "ok") md << "Integrity: " << markdown_prose(x.integrity) << "\n\n";
    if (x.metrics.poisoned) md << x.metrics.poisoned << " outputs never written (still the NaN poison).\n\n";
    if (x.metrics.all_zero) md << "All outputs are zero.\n\n";
    md << "```\n";
    if (x.ran() && !x.metrics.passes(r.gate))
      for (const std::string& l : mismatch_lines(x.metrics, r.gate, x.shape)) md << l << "\n";
    for (const auto& f : x.metrics.failures) md << f.line(plain_line(x.name)) << "\n";
    md << "```\n";
    if (!x.reproduce.empty()) md << "Reproduce: " << markdown_code(x.reproduce) << "\n\n";
  }
  if (!any) md << "None: every set passed the gate.\n";
  subnormal_lines(md, r);
  official_lines(md, r);
  bool skipped = false;
  for (const auto& x : r.results)
    if (x.disposition(r.gate) == Disposition::skipped) {
      if (!skipped) md << "\n## Skipped (nothing judged)\n\n";
      skipped = true;
      md << "- " << markdown_text(x.name) << ": " << markdown_prose(x.error) << "\n";
    }
  bool unsupported = false;
  for (const auto& x : r.results)
    if (!x.supported()) {
      if (!unsupported) md << "\n## Not supported\n\n";
      unsupported = true;
      md << "- " << markdown_text(x.name) << ": " << markdown_prose(x.not_supported) << "\n";
    }
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::ostringstream md;
  // Whatever came from a submission, a runner or a file (the title's path, header values,
  // warnings, errors) is written as text (markdown_text.hpp), never as Markdown.
  md << "# " << markdown_text(r.title) << "\n\n**Verdict: " << name(r.verdict()) << "** (gate: `" << name(r.gate) << "`)\n\n";
  for (const auto& [k, v] : r.header) md << "- " << markdown_text(k) << ": " << markdown_code(v) << "\n";
  for (const auto& w : r.warnings) md << "\n> **Warning:** " << markdown_prose(w) << "\n";
  // The plots, shown where report.md is rendered (they lie beside it), and the page for a browser.
  md << "\n## Plots\n\n";
  if (r.has_plot_data)
    md << "![Elements by error, per grad dtype](error_histogram.svg)\n\n![Largest error by angle binade, per grad dtype]"
          "(error_by_angle.svg)\n\n";
  else md << "Not drawn: this report was read back from a report.json written before error histograms were recorded.\n\n";
  md << "The whole report in one page for a browser: [report.html](report.html).\n";
  md << "\n## Results\n\nErrors in units of 2^-24 S, S = |gc sin t| + |gs cos t|; ulps of the correctly rounded float32 result.\n\n";
  results_table(md, r);
  failures(md, r);
  // The element of largest scaled error of every set that ran, passed or not.
  md << "\n## Worst element of each set\n\n```\n";
  for (const auto& x : r.results)
    if (x.metrics.worst) md << x.metrics.worst->line(plain_line(x.name), "worst") << "\n";
  md << "```\n";
  md << "\n## Tolerance tiers\n\n";
  for (Tier t : all_tiers) md << "- `" << name(t) << "`: " << rule(t).source << "\n";
  return md.str();
}

}  // namespace rope2d::verify
