// Writing verification reports in Markdown, JSON, JUnit XML and SVG.
#include "rope2d/verify/report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rope2d/ref/floats.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

namespace {

void write_atomic(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error(tmp.string() + ": write failed");
  }
  fs::rename(tmp, path);
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string tier_cells(const Metrics& m) {
  std::string s;
  for (Tier t : all_tiers) s += fmt::format(" {} |", m.passes(t) ? "pass" : fmt::format("FAIL ({})", m.over[static_cast<int>(t)]));
  return s;
}

nlohmann::ordered_json element_json(const ElementReport& e) {
  return {{"index", e.index},   {"grad_cos", ref::hex(e.in.gc)}, {"grad_sin", ref::hex(e.in.gs)},
          {"idx_theta", ref::hex(e.in.t)}, {"ref", ref::hex(e.ref)}, {"got", ref::hex(e.got)},
          {"scaled_error", std::isfinite(e.scaled_error) ? nlohmann::json(e.scaled_error) : nlohmann::json("inf")},
          {"ulps", std::isfinite(e.ulps) ? nlohmann::json(e.ulps) : nlohmann::json("inf")}};
}

// A bar chart as SVG: one series per label, bars side by side.
std::string bar_svg(const std::string& title, const std::vector<std::string>& xlabels,
                    const std::vector<std::pair<std::string, std::vector<double>>>& series, bool log_scale,
                    const std::string& ylabel) {
  const int w = 900, h = 360, left = 60, bottom = 60, top = 40;
  const double plot_w = w - left - 20, plot_h = h - top - bottom;
  double ymax = 0;
  for (const auto& [name, v] : series)
    for (double y : v) ymax = std::max(ymax, log_scale ? std::log10(1 + y) : y);
  if (ymax <= 0) ymax = 1;
  const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
  std::ostringstream s;
  s << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n", w, h);
  s << fmt::format("<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n", left, xml_escape(title));
  s << fmt::format("<text x=\"10\" y=\"{}\" transform=\"rotate(-90 10 {})\">{}</text>\n", top + plot_h / 2, top + plot_h / 2, xml_escape(ylabel));
  const double slot = plot_w / std::max<std::size_t>(1, xlabels.size());
  const double bar = slot * 0.8 / std::max<std::size_t>(1, series.size());
  for (std::size_t si = 0; si < series.size(); ++si) {
    const auto& [name, v] = series[si];
    for (std::size_t i = 0; i < v.size() && i < xlabels.size(); ++i) {
      const double y = log_scale ? std::log10(1 + v[i]) : v[i];
      const double bh = plot_h * y / ymax;
      s << fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{} {}: {}</title></rect>\n",
                       left + i * slot + si * bar, top + plot_h - bh, bar, bh, colors[si % 4], xml_escape(name), xlabels[i], v[i]);
    }
    s << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                     w - 160, top + 14 * si, colors[si % 4], w - 145, top + 9 + 14 * si, xml_escape(name));
  }
  for (std::size_t i = 0; i < xlabels.size(); ++i)
    s << fmt::format("<text x=\"{:.1f}\" y=\"{}\" transform=\"rotate(45 {:.1f} {})\">{}</text>\n", left + i * slot, h - bottom + 14,
                     left + i * slot, h - bottom + 14, xml_escape(xlabels[i]));
  s << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", left, top + plot_h, w - 20, top + plot_h);
  s << "</svg>\n";
  return s.str();
}

}  // namespace

std::string Report::verdict() const {
  bool incorrect = false;
  for (const auto& r : results) {
    if (!r.ran()) return "failed";
    incorrect |= !r.passed(gate);
  }
  return incorrect ? "incorrect" : "passed";
}

int Report::exit_code() const {
  const std::string v = verdict();
  return v == "passed" ? 0 : v == "incorrect" ? 1 : 3;
}

std::string summary(const Report& r) {
  std::ostringstream s;
  int passed = 0, incorrect = 0, failed = 0;
  for (const auto& x : r.results) {
    const std::string d = x.disposition(r.gate);
    (d == "passed" ? passed : d == "incorrect" ? incorrect : failed)++;
    if (d == "passed") continue;
    s << fmt::format("{:<10} {:<34} ", d, x.name);
    if (!x.ran()) s << x.error;
    else if (!x.integrity.empty() && x.integrity != "ok") s << x.integrity;
    else s << fmt::format("{} of {} over {}; max {:.3g} x 2^-24 S", x.metrics.over[static_cast<int>(r.gate)], x.metrics.count,
                          name(r.gate), x.metrics.max_scaled);
    s << "\n";
    for (const auto& f : x.metrics.failures) s << "    " << f.line(x.name) << "\n";
    if (!x.reproduce.empty()) s << "    reproduce: " << x.reproduce << "\n";
  }
  s << fmt::format("{}: {} passed, {} incorrect, {} failed to run (gate: {})\n", r.verdict(), passed, incorrect, failed,
                   name(r.gate));
  return s.str();
}

void write_report(const std::string& dir_s, const Report& r) {
  const fs::path dir(dir_s);
  fs::create_directories(dir);
  // JSON
  nlohmann::ordered_json j;
  j["title"] = r.title;
  for (const auto& [k, v] : r.header) j["header"][k] = v;
  j["gate"] = name(r.gate);
  j["verdict"] = r.verdict();
  j["warnings"] = r.warnings;
  nlohmann::ordered_json tiers = nlohmann::json::array();
  for (Tier t : all_tiers) tiers.push_back({{"tier", name(t)}, {"source", rule(t).source}});
  j["tiers"] = tiers;
  for (const auto& x : r.results) {
    nlohmann::ordered_json e;
    e["name"] = x.name;
    e["set"] = x.set;
    e["grad_dtype"] = x.dtype;
    e["disposition"] = x.disposition(r.gate);
    if (!x.ran()) e["error"] = x.error;
    if (!x.integrity.empty()) e["integrity"] = x.integrity;
    const Metrics& m = x.metrics;
    e["elements"] = m.count;
    e["correctly_rounded_fraction"] = m.count ? static_cast<double>(m.correctly_rounded) / m.count : 1.0;
    e["max_scaled_error"] = std::isfinite(m.max_scaled) ? nlohmann::json(m.max_scaled) : nlohmann::json("inf");
    e["rms_scaled_error"] = std::isfinite(m.rms_scaled()) ? nlohmann::json(m.rms_scaled()) : nlohmann::json("inf");
    e["max_ulp"] = std::isfinite(m.max_ulp) ? nlohmann::json(m.max_ulp) : nlohmann::json("inf");
    e["unwritten"] = m.poisoned;
    e["nonfinite_mismatch"] = m.nonfinite_mismatch;
    e["all_zero"] = m.all_zero;
    for (Tier t : all_tiers) e["tiers"][std::string(name(t))] = {{"over", m.over[static_cast<int>(t)]}, {"pass", m.passes(t)}};
    if (m.worst) e["worst"] = element_json(*m.worst);
    for (const auto& f : m.failures) e["failures"].push_back(element_json(f));
    if (!x.reproduce.empty()) e["reproduce"] = x.reproduce;
    if (x.kernel_ms > 0) e["kernel_ms"] = x.kernel_ms;
    j["results"].push_back(e);
  }
  write_atomic(dir / "report.json", j.dump(2) + "\n");

  // Markdown
  std::ostringstream md;
  md << "# " << r.title << "\n\n**Verdict: " << r.verdict() << "** (gate: `" << name(r.gate) << "`)\n\n";
  for (const auto& [k, v] : r.header) md << "- " << k << ": `" << v << "`\n";
  for (const auto& w : r.warnings) md << "\n> **Warning:** " << w << "\n";
  md << "\n## Results\n\nErrors in units of 2^-24 S, S = |gc sin t| + |gs cos t|; ulps of the correctly rounded float32 result.\n\n";
  md << "| set | dtype | disposition | elements | max err | RMS err | max ulp | correctly rounded |";
  for (Tier t : all_tiers) md << " " << name(t) << " |";
  md << "\n|---|---|---|---|---|---|---|---|";
  for (int i = 0; i < tier_count; ++i) md << "---|";
  md << "\n";
  for (const auto& x : r.results) {
    const Metrics& m = x.metrics;
    md << fmt::format("| {} | {} | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.4f} |", x.name, x.dtype, x.disposition(r.gate), m.count,
                      m.max_scaled, m.rms_scaled(), m.max_ulp, m.count ? double(m.correctly_rounded) / m.count : 1.0);
    md << (x.ran() ? tier_cells(m) : std::string(" — |").append("").c_str()) << "\n";
  }
  md << "\n## Failures\n\n";
  bool any = false;
  for (const auto& x : r.results) {
    if (x.disposition(r.gate) == "passed") continue;
    any = true;
    md << "### " << x.name << " — " << x.disposition(r.gate) << "\n\n";
    if (!x.ran()) md << "Could not run: " << x.error << "\n\n";
    if (!x.integrity.empty() && x.integrity != "ok") md << "Integrity: " << x.integrity << "\n\n";
    if (x.metrics.poisoned) md << x.metrics.poisoned << " outputs never written (still the NaN poison).\n\n";
    if (x.metrics.all_zero) md << "All outputs are zero.\n\n";
    md << "```\n";
    for (const auto& f : x.metrics.failures) md << f.line(x.name) << "\n";
    md << "```\n";
    if (!x.reproduce.empty()) md << "Reproduce: `" << x.reproduce << "`\n\n";
  }
  if (!any) md << "None: every set passed the gate.\n";
  // The element of largest scaled error of every set that ran, passed or not.
  md << "\n## Worst element of each set\n\n```\n";
  for (const auto& x : r.results)
    if (x.metrics.worst) md << x.metrics.worst->line(x.name, "worst") << "\n";
  md << "```\n";
  md << "\n## Tolerance tiers\n\n";
  for (Tier t : all_tiers) md << "- `" << name(t) << "`: " << rule(t).source << "\n";
  md << "\nPlots: `error_histogram.svg`, `error_by_angle.svg`.\n";
  write_atomic(dir / "report.md", md.str());

  // JUnit XML: one testcase per set.
  std::ostringstream x;
  int failures = 0, errors = 0;
  for (const auto& s : r.results) (s.ran() ? (s.passed(r.gate) ? failures : ++failures) : ++errors);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << fmt::format("<testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", xml_escape(r.title), r.results.size(),
                   failures, errors);
  for (const auto& s : r.results) {
    x << fmt::format("  <testcase classname=\"rope2d.{}\" name=\"{}\"", xml_escape(s.set), xml_escape(s.name));
    if (s.passed(r.gate)) {
      x << "/>\n";
      continue;
    }
    x << ">\n";
    std::string msg = !s.ran() ? s.error : (!s.integrity.empty() && s.integrity != "ok") ? s.integrity
                      : fmt::format("{} of {} elements over {}", s.metrics.over[static_cast<int>(r.gate)], s.metrics.count, name(r.gate));
    std::string body;
    for (const auto& f : s.metrics.failures) body += f.line(s.name) + "\n";
    x << fmt::format("    <{} message=\"{}\">{}</{}>\n", s.ran() ? "failure" : "error", xml_escape(msg), xml_escape(body),
                     s.ran() ? "failure" : "error");
    x << "  </testcase>\n";
  }
  x << "</testsuite>\n";
  write_atomic(dir / "junit.xml", x.str());

  // Plots, aggregated per grad dtype.
  std::map<std::string, Metrics> by_dtype;
  for (const auto& s : r.results)
    if (s.ran()) by_dtype[s.dtype].merge(s.metrics, 0);
  std::vector<std::string> hx{"exact"};
  for (int k = 1; k < 19; ++k) hx.push_back(fmt::format("<=2^{}", k - 8));
  hx.push_back("beyond");
  std::vector<std::pair<std::string, std::vector<double>>> hs, as;
  for (const auto& [d, m] : by_dtype) {
    hs.push_back({d, std::vector<double>(m.histogram.begin(), m.histogram.end())});
    as.push_back({d, std::vector<double>(m.max_by_angle.begin(), m.max_by_angle.end())});
  }
  write_atomic(dir / "error_histogram.svg",
               bar_svg("Error histogram (units of 2^-24 S), per grad dtype", hx, hs, true, "log10(1 + count)"));
  std::vector<std::string> ax{"|t|<1"};
  for (int k = 1; k < 26; ++k) ax.push_back(fmt::format("2^{}", k - 1));
  write_atomic(dir / "error_by_angle.svg",
               bar_svg("Largest error by angle binade (units of 2^-24 S)", ax, as, false, "max error"));
}

}  // namespace rope2d::verify
