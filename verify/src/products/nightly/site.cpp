// The nightly dashboard (nightly_site.hpp): every night under the root read back through the
// validated readers, drawn as one static page. The figures shown are the summaries' own,
// formatted once here (fig()), so a test can read them back from the page.
#include "products/nightly/nightly_site.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "products/report/html.hpp"
#include "products/report/svg.hpp"
#include "codec/atomic_file.hpp"
#include "products/nightly/nightly_input.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Every figure on the page: four significant digits, "inf" beyond the finite.
std::string fig(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "inf"; }

// The tiers whose allowance is a multiple of S, loosest first (the chart's lines, the table's columns).
std::vector<Tier> margin_tiers() {
  std::vector<Tier> t;
  for (Tier x : all_tiers)
    if (rule(x).bound_based) t.push_back(x);
  std::sort(t.begin(), t.end(), [](Tier a, Tier b) { return rule(a).scale_coeff > rule(b).scale_coeff; });
  return t;
}

double s_term(Tier t) { return rule(t).scale_coeff * 0x1p24; }

// A reader's message with the root's path taken out, so the page names files as its links do
// (relative to the page) and shows nothing of the machine it was made on.
std::string under_root(std::string message, const std::string& root) {
  const std::string prefix = (fs::path(root) / "").string();
  for (std::size_t at; (at = message.find(prefix)) != std::string::npos;) message.erase(at, prefix.size());
  return message.substr(0, 400);
}

SiteShard shard_status(const fs::path& file, const std::string& root) {
  SiteShard s;
  try {
    const json j = read_shard_result(file.string());
    s.index = j["shard"]["index"].get<int>();
    s.count = j["shard"]["count"].get<int>();
    int bad = 0, items = 0;
    for (const json& v : j["verify"]) {
      ++items;
      const std::string verdict = v["verdict"];
      if (verdict != "passed" && verdict != "skipped") ++bad;
    }
    for (const json& g : j["golden"]["results"]) ++items, bad += g["disposition"] != "passed";
    for (const json& r : j["sweep"])
      if (r["ran"].get<bool>()) ++items, bad += r["over_float32_bound"].get<std::int64_t>() > 0 || !r["complete"].get<bool>();
    for (const json& p : j.value("premise", json::array()))  // none in shards of builds before it
      if (p["disposition"] != "skipped") ++items, bad += p["disposition"] != "passed";
    s.status = bad ? "FAILED" : "passed";
    s.detail = fmt::format("shard {} of {}: {} items, {} not passed", s.index, s.count, items, bad);
  } catch (const std::exception& e) {
    s.status = "unreadable";
    s.detail = under_root(e.what(), root);
  }
  return s;
}

const char* status_class(const std::string& status) {
  return status == "passed" ? "pass" : status.starts_with("skipped") ? "skip" : "fail";
}

std::string run_label(const NightVerify& v) { return v.kernel + " " + dtype_label(v, "(all dtypes)"); }

// The night's time: the wall time of a --gpus night, else its verifier runs and sweep added up.
std::pair<double, const char*> night_seconds(const NightSummary& n) {
  if (n.wall_seconds) return {*n.wall_seconds, "wall"};
  double t = n.sweep.seconds;
  for (const NightVerify& v : n.verify) t += v.seconds.value_or(0.0);
  return {t, "sum"};
}

struct Point {
  std::size_t night;
  double worst;
  std::string tip;
};

// Places nights evenly across the frame; a regression night gets a red band behind its slot.
void night_slots(svg::Canvas& c, const svg::Frame& f, const std::vector<const SiteNight*>& nights) {
  const double slot = f.width / std::max<std::size_t>(1, nights.size());
  for (std::size_t i = 0; i < nights.size(); ++i) {
    const double x = f.left + (i + 0.5) * slot, y = f.bottom() + 10;
    const NightSummary& n = *nights[i]->summary;
    if (!n.regressions.empty()) {
      c.rect(f.left + i * slot, f.top, slot, f.height, "#fde0e0", fmt::format("{}: {} regression(s)", n.date, n.regressions.size()));
      c.text(x, f.top + 12, "regressed", {{"text-anchor", "middle"}, {"fill", "#b00000"}, {"font-size", "10"}});
    }
    c.line(x, f.bottom(), x, f.bottom() + 4);
    c.text(x, y, n.date, {{"text-anchor", "end"}, {"font-size", "10"}, {"transform", fmt::format("rotate(-35 {} {})", svg::num(x), svg::num(y))}});
  }
}

// Per grad dtype: each kernel's worst error per night (log scale), with every bound-based tier's
// S term as a dashed line, so the margin to each allowance is the distance to its line.
std::string margin_chart(const std::string& dtype, const std::vector<const SiteNight*>& nights) {
  std::map<std::string, std::vector<Point>> by_kernel;
  double lo = 1, hi = 1;
  for (std::size_t i = 0; i < nights.size(); ++i)
    for (const NightVerify& v : nights[i]->summary->verify) {
      if (dtype_label(v, "(all dtypes)") != dtype) continue;
      const RunWorst w = run_worst(v);
      if (!w.max) continue;
      by_kernel[v.kernel].push_back({i, *w.max, fmt::format("{} {} {}: worst {} x 2^-24 S ({})", nights[i]->date, v.kernel, dtype, fig(*w.max), w.set)});
      if (*w.max > 0 && std::isfinite(*w.max)) lo = std::min(lo, *w.max), hi = std::max(hi, *w.max);
    }
  for (Tier t : margin_tiers()) hi = std::max(hi, s_term(t) * 1.5);
  const double width = 960, height = 330;
  const svg::Frame f{80, 40, width - 80 - 170, height - 40 - 80};
  svg::Canvas c(width, height);
  c.text(f.left, 20, "Worst error per night, grad dtype " + dtype + " (units of 2^-24 S), against each tier's allowance",
         {{"font-size", "14"}});
  const svg::Axis a = svg::value_axis(lo, hi);
  night_slots(c, f, nights);
  svg::draw_y_axis(c, f, a, "worst error");
  for (Tier t : margin_tiers()) {
    const double y = f.bottom() - f.height * a.at(s_term(t));
    c.line(f.left, y, f.left + f.width, y, "#c00000").append_attribute("stroke-dasharray").set_value("6 4");
    c.text(f.left + f.width + 6, y + 4, fmt::format("{} ({})", rule(t).name, svg::tick_label(s_term(t))), {{"fill", "#c00000"}});
  }
  const double slot = f.width / std::max<std::size_t>(1, nights.size());
  std::size_t k = 0;
  for (const auto& [kernel, pts] : by_kernel) {
    const std::string& color = svg::series_color(k);
    std::string path;
    for (const Point& p : pts) {
      const double x = f.left + (p.night + 0.5) * slot, y = f.bottom() - f.height * a.at(std::isfinite(p.worst) ? p.worst : a.hi);
      path += svg::num(x) + "," + svg::num(y) + " ";
      pugi::xml_node dot = xml::add(c.root(), "circle", {{"cx", svg::num(x)}, {"cy", svg::num(y)}, {"r", "4"}, {"fill", color}});
      xml::add(dot, "title", {}, p.tip);
    }
    xml::add(c.root(), "polyline", {{"points", path}, {"fill", "none"}, {"stroke", color}, {"stroke-width", "1.5"}});
    c.rect(f.left + 10 + 150.0 * k, height - 18, 12, 12, color);
    c.text(f.left + 26 + 150.0 * k, height - 8, kernel);
    ++k;
  }
  if (by_kernel.empty()) svg::draw_note(c, f, "No verifier run of this dtype reported sets");
  return html::inline_svg(c.str());
}

// Seconds per night as bars, the regression nights marked.
std::string time_chart(const std::vector<const SiteNight*>& nights) {
  const double width = 960, height = 280;
  const svg::Frame f{80, 40, width - 80 - 170, height - 40 - 80};
  svg::Canvas c(width, height);
  c.text(f.left, 20, "Time per night (seconds: wall time of a --gpus night, else its runs added up)", {{"font-size", "14"}});
  double lo = INFINITY, hi = 0;
  for (const SiteNight* n : nights) {
    const double t = night_seconds(*n->summary).first;
    if (t > 0) lo = std::min(lo, t), hi = std::max(hi, t);
  }
  const svg::Axis a = svg::value_axis(std::isfinite(lo) ? lo : 0, hi);
  night_slots(c, f, nights);
  svg::draw_y_axis(c, f, a, "seconds");
  const double slot = f.width / std::max<std::size_t>(1, nights.size());
  for (std::size_t i = 0; i < nights.size(); ++i) {
    const auto [t, how] = night_seconds(*nights[i]->summary);
    const double h = f.height * a.at(t);
    c.rect(f.left + i * slot + slot * 0.25, f.bottom() - h, slot * 0.5, h, svg::series_color(0),
           fmt::format("{}: {} s ({})", nights[i]->date, fig(t), how));
  }
  return html::inline_svg(c.str());
}

void night_row(std::ostringstream& b, const SiteNight& night) {
  b << "<tr data-night=\"" << html::text(night.date) << "\"><td>" << html::link(night.date + "/summary.md", night.date) << "</td>";
  if (!night.summary) {
    b << "<td class=\"fail\" data-k=\"status\">unreadable</td><td colspan=\"8\" data-k=\"reason\">" << html::text(night.unreadable) << "</td></tr>\n";
    return;
  }
  const NightSummary& n = *night.summary;
  b << "<td class=\"" << status_class(n.status) << "\" data-k=\"status\">" << html::text(n.status) << "</td><td data-k=\"shards\">";
  if (night.shards.empty()) b << "<span class=\"shard " << status_class(n.status) << "\" title=\"one process\"></span> 1";
  else {
    int passed = 0;
    for (const SiteShard& s : night.shards) {
      b << "<span class=\"shard " << status_class(s.status) << "\" title=\"" << html::text(s.detail) << "\"></span>";
      passed += s.status == "passed";
    }
    b << " " << passed << " of " << night.shards.size() << " passed";
  }
  int runs_passed = 0;
  for (const NightVerify& v : n.verify) runs_passed += v.verdict == Disposition::passed;
  std::size_t golden_passed = 0;
  for (const NightGolden& g : n.golden.results) golden_passed += g.disposition == Disposition::passed;
  b << "</td><td data-k=\"runs\">" << runs_passed << " of " << n.verify.size() << "</td><td data-k=\"golden\">";
  if (n.golden.results.empty()) b << "skipped";
  else b << golden_passed << " of " << n.golden.results.size();
  b << "</td><td class=\"num\" data-k=\"sweep\">" << (n.sweep.ran ? fig(n.sweep.max_scaled_error) : "skipped") << "</td>";
  const auto [t, how] = night_seconds(n);
  b << "<td class=\"num\" data-k=\"seconds\">" << fig(t) << "</td><td>" << how << "</td><td data-k=\"regressions\""
    << (n.regressions.empty() ? "" : " class=\"fail\"") << ">" << n.regressions.size();
  if (!n.regressions.empty()) {
    b << "<ul>";
    for (const std::string& r : n.regressions) b << "<li>" << html::text(r) << "</li>";
    b << "</ul>";
  }
  b << "</td><td>";
  for (const char* f : {"summary.md", "junit.xml"}) b << html::link(night.date + "/" + f, f) << " ";
  b << "</td></tr>\n";
}

// Per night and run: the worst error and its margin to each tier's allowance, with links to
// the run's report.
void margin_rows(std::ostringstream& b, const std::vector<const SiteNight*>& nights, const fs::path& root) {
  b << "<table id=\"margins\">\n<tr><th>night</th><th>kernel</th><th>grad dtype</th><th>verdict</th><th>worst error</th><th>set</th>";
  for (Tier t : margin_tiers()) b << "<th>margin to " << rule(t).name << "</th>";
  b << "<th>sets beyond the S term</th><th>report</th></tr>\n";
  for (const SiteNight* night : nights)
    for (const NightVerify& v : night->summary->verify) {
      const RunWorst w = run_worst(v);
      b << "<tr data-night=\"" << html::text(night->date) << "\" data-run=\"" << html::text(run_label(v)) << "\"><td>"
        << html::text(night->date) << "</td><td>" << html::text(v.kernel) << "</td><td>" << html::text(dtype_label(v, "(all dtypes)"))
        << "</td><td class=\"" << status_class(std::string(name(v.verdict))) << "\" data-k=\"verdict\">" << name(v.verdict)
        << "</td><td class=\"num\" data-k=\"worst\">" << (w.max ? fig(*w.max) : "—") << "</td><td>" << html::text(w.set) << "</td>";
      for (Tier t : margin_tiers()) {
        if (!w.max) b << "<td>—</td>";
        else {
          const double m = tier_margin(t, *w.max);
          b << "<td class=\"num " << (m >= 1 ? "pass" : "fail") << "\" data-k=\"margin " << rule(t).name << "\">"
            << (std::isfinite(m) ? fig(m) + "x" : std::string("exact")) << "</td>";
        }
      }
      const std::string stem = night->date + "/verify-" + v.kernel + "-" + dtype_label(v);
      b << "<td class=\"num\">" << w.beyond_s_term << "</td><td>";
      std::error_code ec;  // a name that cannot be resolved (a link that loops) is linked to by none
      if (fs::exists(root / stem / "report.html", ec)) b << html::link(stem + "/report.html", "report.html");
      else if (fs::exists(root / stem / "report.md", ec)) b << html::link(stem + "/report.md", "report.md");
      else if (fs::exists(root / (stem + ".log"), ec)) b << html::link(stem + ".log", "log");
      b << "</td></tr>\n";
    }
  b << "</table>\n";
}

}  // namespace

RunWorst run_worst(const NightVerify& v) {
  RunWorst w;
  const double s = s_term(Tier::float32_bound);
  for (const auto& [set, r] : v.sets) {
    if (r.disposition == Disposition::not_supported || r.disposition == Disposition::skipped) continue;
    const double e = r.max.value_or(INFINITY);
    if (r.disposition == Disposition::passed && e > s) {
      ++w.beyond_s_term;
      continue;
    }
    if (r.disposition == Disposition::failed && !r.max) continue;  // never ran: no error to speak of
    if (!w.max || e > *w.max) w.max = e, w.set = set;
  }
  return w;
}

double tier_margin(Tier t, double worst) { return worst > 0 ? s_term(t) / worst : INFINITY; }

std::vector<SiteNight> read_nights(const std::string& root) {
  std::vector<SiteNight> nights;
  if (!fs::is_directory(root)) return nights;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string date = e.path().filename().string();
    if (!e.is_directory(ec) || e.is_symlink(ec) || !valid_run_date(date) || !summary_named(e.path() / "summary.json")) continue;
    SiteNight n{date, std::nullopt, "", {}};
    try {
      n.summary = read_previous_summary((e.path() / "summary.json").string());
    } catch (const std::exception& x) {  // bad input names the file and field; shown, never fatal
      n.unreadable = under_root(x.what(), root);
    }
    std::vector<fs::path> shards;
    for (const auto& f : fs::directory_iterator(e.path(), ec)) {
      const std::string name = f.path().filename().string();
      if (f.is_regular_file(ec) && name.starts_with("shard-") && name.ends_with(".json")) shards.push_back(f.path());
    }
    std::sort(shards.begin(), shards.end());
    for (const fs::path& s : shards) n.shards.push_back(shard_status(s, root));
    nights.push_back(std::move(n));
  }
  std::sort(nights.begin(), nights.end(), [](const SiteNight& a, const SiteNight& b) { return a.date < b.date; });
  return nights;
}

std::string nightly_site_html(const std::vector<SiteNight>& all, const std::string& root) {
  std::vector<const SiteNight*> nights;
  for (const SiteNight& n : all)
    if (n.summary) nights.push_back(&n);
  std::ostringstream b;
  b << "<h1>rope2d nightly</h1>\n<p>" << all.size() << " night" << (all.size() == 1 ? "" : "s");
  if (!all.empty()) b << ", " << html::text(all.front().date) << " to " << html::text(all.back().date);
  int failed = 0;
  for (const SiteNight* n : nights) failed += status_class(n->summary->status) == std::string("fail");
  b << "; " << failed << " failed" << (nights.size() < all.size() ? fmt::format(", {} unreadable", all.size() - nights.size()) : "")
    << ". Newest last. Errors in units of 2^-24 S, S = |gc sin t| + |gs cos t|.</p>\n";
  b << "<h2>Nights</h2>\n<table id=\"nights\">\n<tr><th>night</th><th>status</th><th>shards</th><th>verifier runs passed</th>"
       "<th>golden passed</th><th>sweep max error</th><th>seconds</th><th></th><th>regressions</th><th>reports</th></tr>\n";
  for (const SiteNight& n : all) night_row(b, n);
  b << "</table>\n";
  std::set<std::string> dtypes;
  for (const SiteNight* n : nights)
    for (const NightVerify& v : n->summary->verify) dtypes.insert(dtype_label(v, "(all dtypes)"));
  b << "<h2>Worst error and margin to each allowance, per grad dtype</h2>\n<p>Per verifier run, the largest error of its "
       "sets: failing sets always, passing sets where their maximum is within float32-bound's S term (beyond it their error is "
       "allowed by the |ref| and subnormal terms, counted apart). The margin to a tier is its allowance's S term over that "
       "error: above 1, inside the allowance by that factor. SOL-ExecBench's tier allows 1e-5 + 1e-5 |ref|, no multiple of S: "
       "the verifier reports give its verdicts.</p>\n";
  for (const std::string& d : dtypes) b << "<figure>" << margin_chart(d, nights) << "</figure>\n";
  margin_rows(b, nights, root);
  b << "<h2>Time</h2>\n<figure>" << time_chart(nights) << "</figure>\n";
  const std::string style =
      ".shard{display:inline-block;width:12px;height:12px;margin-right:2px;border:1px solid #555}"
      ".shard.pass{background:#1e7e34}.shard.fail{background:#b00000}.shard.skip{background:#d9a400}"
      "td ul{margin:2px 0;padding-left:16px;font-weight:normal}\n";
  return html::page("rope2d nightly", style, b.str());
}

std::string write_nightly_site(const std::string& root) {
  const std::string path = (fs::path(root) / "index.html").string();
  require_output_file(path, "");
  write_file_atomic(path, {nightly_site_html(read_nights(root), root)});
  return path;
}

}  // namespace rope2d::verify
