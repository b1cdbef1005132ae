// report.html: the report for a browser, in one file with nothing to fetch: the verdict, the
// header, the plots inline, one table row per set, every failure as its FAIL lines and
// reproduce command, the worst element of every set, and the tiers; and the page helpers
// (html.hpp) the nightly dashboard shares.
#include "html.hpp"

#include <fmt/format.h>

#include <sstream>

#include "codec/markdown_text.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "xml.hpp"

namespace rope2d::verify {

namespace html {

std::string text(std::string_view s) {
  std::string out;
  for (char ch : xml::xml_safe(s)) switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  return out;
}

std::string page(std::string_view title, std::string_view style, std::string_view body) {
  std::ostringstream p;
  p << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" << text(title) << "</title>\n<style>\n"
    << "body{font-family:system-ui,sans-serif;margin:24px;color:#1a1a1a;max-width:1400px}\n"
    << "table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 7px;text-align:left}\n"
    << "th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    << ".pass{color:#05620b}.fail{color:#b00000;font-weight:bold}.skip{color:#7a5b00}\n"
    << ".badge{display:inline-block;padding:3px 10px;border-radius:4px;color:#fff;font-weight:bold}\n"
    << ".badge.pass{background:#1e7e34;color:#fff}.badge.fail{background:#b00000;color:#fff}.badge.skip{background:#a07800;color:#fff}\n"
    << "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}svg{max-width:100%;height:auto}\n"
    << ".warn{background:#fff4ce;border-left:4px solid #d9a400;padding:6px 10px}\n"
    << style << "</style>\n</head>\n<body>\n"
    << body << "</body>\n</html>\n";
  return p.str();
}

std::string inline_svg(std::string_view svg) {
  if (svg.starts_with("<?xml")) svg.remove_prefix(std::min(svg.size(), svg.find("?>") + 2));
  while (!svg.empty() && (svg.front() == '\n' || svg.front() == ' ')) svg.remove_prefix(1);
  return std::string(svg);
}

std::string link(std::string_view rel, std::string_view label) {
  if (!safe_link_target(rel)) return text(label);
  return "<a href=\"" + text(rel) + "\">" + text(label) + "</a>";
}

}  // namespace html

namespace {

const char* disposition_class(Disposition d) {
  return d == Disposition::passed ? "pass" : d == Disposition::not_supported || d == Disposition::skipped ? "skip" : "fail";
}

void results_rows(std::ostringstream& b, const Report& r) {
  b << "<table>\n<tr><th>set</th><th>dtype</th><th>disposition</th><th>elements</th><th>max err</th><th>RMS err</th>"
       "<th>max ulp</th><th>correctly rounded</th>";
  for (Tier t : all_tiers) b << "<th>" << name(t) << "</th>";
  b << "</tr>\n";
  for (const auto& x : r.results) {
    const Metrics& m = x.metrics;
    const Disposition d = x.disposition(r.gate);
    b << "<tr><td>" << html::text(x.name) << "</td><td>" << html::text(dtype_name(x.dtype)) << "</td><td class=\"" << disposition_class(d)
      << "\">" << name(d) << (x.beyond_definition ? " (beyond the definition)" : "") << "</td>"
      << fmt::format("<td class=\"num\">{}</td>", m.count);
    // A set of no element measured has no error to show: dashes, not zeros and a ratio of one.
    if (m.count)
      b << fmt::format("<td class=\"num\">{:.3g}</td><td class=\"num\">{:.3g}</td><td class=\"num\">{:.3g}</td><td class=\"num\">{:.4f}</td>",
                       m.max_scaled, m.rms_scaled(), m.max_ulp, double(m.correctly_rounded) / m.count);
    else b << "<td>—</td><td>—</td><td>—</td><td>—</td>";
    for (Tier t : all_tiers) {
      if (!x.ran()) b << "<td>—</td>";
      else if (m.passes(t)) b << "<td class=\"pass\">pass</td>";
      else b << "<td class=\"fail\">FAIL (" << m.over[static_cast<int>(t)] << ")</td>";
    }
    b << "</tr>\n";
  }
  b << "</table>\n";
}

void failure_blocks(std::ostringstream& b, const Report& r) {
  b << "<h2>Failures</h2>\n";
  bool any = false;
  for (const auto& x : r.results) {
    const Disposition d = x.disposition(r.gate);
    if (d == Disposition::passed || d == Disposition::not_supported) continue;
    any = true;
    b << "<h3>" << html::text(x.name) << " — <span class=\"fail\">" << name(d) << "</span></h3>\n";
    if (!x.ran()) b << "<p>Could not run: " << html::text(x.error) << "</p>\n";
    if (!x.integrity.empty() && x.integrity != "ok") b << "<p>Integrity: " << html::text(x.integrity) << "</p>\n";
    if (x.metrics.poisoned) b << "<p>" << x.metrics.poisoned << " outputs never written (still the NaN poison).</p>\n";
    if (x.metrics.all_zero) b << "<p>All outputs are zero.</p>\n";
    if (!x.metrics.failures.empty()) {
      b << "<pre>";
      for (const auto& f : x.metrics.failures) b << html::text(f.line(x.name)) << "\n";
      b << "</pre>\n";
    }
    if (!x.reproduce.empty()) b << "<p>Reproduce: <code>" << html::text(x.reproduce) << "</code></p>\n";
  }
  if (!any) b << "<p>None: every set passed the gate.</p>\n";
  bool first = true;
  for (const auto& x : r.results) {
    if (!x.ran() || r.gate == Tier::solexecbench) continue;
    const std::string why = x.metrics.sxb_disagreement(r.gate);
    if (why.empty()) continue;
    if (first) b << "<h2>SOL-ExecBench's rules beside the gate</h2>\n<ul>\n";
    first = false;
    b << "<li>" << html::text(x.name) << ": " << (x.metrics.passes(Tier::solexecbench) ? "passes" : "fails")
      << " SOL-ExecBench's rules, " << (x.metrics.passes(r.gate) ? "passes" : "fails") << " <code>" << name(r.gate)
      << "</code>: " << html::text(why) << "</li>\n";
  }
  if (!first) b << "</ul>\n";
  for (const auto& x : r.results)
    if (!x.supported()) b << "<p class=\"skip\">Not supported: " << html::text(x.name) << ": " << html::text(x.not_supported) << "</p>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  std::ostringstream b;
  const Disposition v = r.verdict();
  b << "<h1>" << html::text(r.title) << "</h1>\n<p><span class=\"badge " << disposition_class(v) << "\" id=\"verdict\">Verdict: "
    << name(v) << "</span> gate: <code>" << name(r.gate) << "</code></p>\n<table>\n";
  for (const auto& [k, val] : r.header) b << "<tr><th>" << html::text(k) << "</th><td><code>" << html::text(val) << "</code></td></tr>\n";
  b << "</table>\n";
  for (const auto& w : r.warnings) b << "<p class=\"warn\"><b>Warning:</b> " << html::text(w) << "</p>\n";
  b << "<h2>Plots</h2>\n";
  if (r.has_plot_data)
    b << "<figure>" << html::inline_svg(render_error_histogram_svg(r)) << "</figure>\n<figure>"
      << html::inline_svg(render_error_by_angle_svg(r)) << "</figure>\n";
  else b << "<p>Not drawn: this report was read back from a report.json written before error histograms were recorded.</p>\n";
  b << "<h2>Results</h2>\n<p>Errors in units of 2^-24 S, S = |gc sin t| + |gs cos t|; ulps of the correctly rounded float32 "
       "result.</p>\n";
  results_rows(b, r);
  failure_blocks(b, r);
  b << "<h2>Worst element of each set</h2>\n<pre>";
  for (const auto& x : r.results)
    if (x.metrics.worst) b << html::text(x.metrics.worst->line(x.name, "worst")) << "\n";
  b << "</pre>\n<h2>Tolerance tiers</h2>\n<ul>\n";
  for (Tier t : all_tiers) b << "<li><code>" << name(t) << "</code>: " << html::text(rule(t).source) << "</li>\n";
  b << "</ul>\n<p>The same report as Markdown: " << html::link("report.md", "report.md") << "; for tools: "
    << html::link("report.json", "report.json") << ".</p>\n";
  return html::page(r.title, "", b.str());
}

}  // namespace rope2d::verify
