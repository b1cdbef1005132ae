// The night's report: summary.md, junit.xml and summary.json, compared with the night before
// (nightly_report.hpp). Every name that came from a shard file goes through markdown_text().
#include "products/nightly/nightly_report.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "codec/atomic_file.hpp"
#include "codec/markdown_text.hpp"
#include "products/nightly/nightly.hpp"
#include "products/nightly/nightly_input.hpp"
#include "products/nightly/nightly_premise.hpp"
#include "products/nightly/nightly_shard.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "rope2d/verify/model/tolerance.hpp"
#include "codec/validate.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The float32-bound tier's allowance, from the tolerance table, in units of 2^-24.
std::string bound_words() {
  const TierRule& b = rule(Tier::float32_bound);
  return fmt::format("{:.7g} x 2^-24 S + {:.3g} x 2^-24 |ref|", b.scale_coeff * 0x1p24, b.ref_coeff * 0x1p24);
}

// A link to a file of the night's folder, or why there is none (it was never written, or its
// name, made of a shard's kernel and dtype names, is not a plain path under the folder).
std::string link_if_there(const fs::path& dir, const std::string& rel, const std::string& absent) {
  // <...>: a destination that may hold spaces (CommonMark).
  if (!safe_link_target(rel) || !fs::exists(dir / rel)) return absent;
  return "[" + markdown_text(rel) + "](<" + rel + ">)";
}

std::string verify_stem(const NightVerify& v) { return "verify-" + v.kernel + "-" + dtype_label(v); }

void bullet_list(std::ostringstream& md, const std::string& heading, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  md << "## " << heading << "\n\n";
  for (const std::string& l : lines) md << "- " << markdown_text(l) << "\n";
  md << "\n";
}

void golden_markdown(std::ostringstream& md, const NightGoldenPart& g) {
  md << "\n## Golden set against the reference\n\n";
  if (!g.skipped.empty()) {
    md << "SKIPPED: " << markdown_text(g.skipped) << "\n";
    return;
  }
  std::size_t passed = 0;
  for (const NightGolden& r : g.results) passed += r.disposition == Disposition::passed;
  md << fmt::format("{}: {} problems, every stored result recomputed by the reference: {} passed.\n", markdown_text(g.dir),
                    g.results.size(), passed);
}

void premise_markdown(std::ostringstream& md, const NightPremise& p, const fs::path& dir) {
  md << "\n## sincosf premise\n\n";
  const double k = p.k_ulp;
  md << fmt::format("The float32 bound is proved for CUDA's sinf / cosf / sincosf within {:g} floats of the correctly rounded "
                    "value ({:g} ulp of the exact value), results in [-1, 1] (float32_bound.hpp).\n\n",
                    k, k + 0.5);
  if (p.disposition == Disposition::skipped) {
    md << "SKIPPED: " << markdown_text(p.reason) << ".\n";
    return;
  }
  if (p.functions.empty()) {  // failed before a measurement read
    md << "FAILED: " << markdown_text(p.reason) << "\n";
    return;
  }
  if (p.given)
    md << "Compared with the measurement given, " << markdown_text(p.file) << " (" << markdown_text(p.device) << ", CUDA runtime "
       << markdown_text(p.cuda_runtime) << ", " << markdown_text(p.date) << "): not measured tonight.\n\n";
  else
    md << "Measured tonight by " << markdown_text(p.program) << " over every finite float32 input on " << markdown_text(p.device)
       << " (CUDA runtime " << markdown_text(p.cuda_runtime) << ", driver " << markdown_text(p.cuda_driver)
       << fmt::format(") in {:.1f} s: ", p.seconds) << link_if_there(dir, "sincosf_ulp.json", "no file") << ", "
       << link_if_there(dir, "sincosf_ulp.log", "no log") << ".\n\n";
  if (p.disposition == Disposition::failed) md << "FAILED: " << markdown_text(p.reason) << "\n\n";
  md << fmt::format("| function | floats from the correctly rounded value (premise: at most {:g}) | ulp from the exact value, MPFR "
                    "re-check (premise: at most {:g}) | outside [-1, 1] (premise: none) | verdict |\n|---|---|---|---|---|\n",
                    k, k + 0.5);
  for (const NightPremiseFigures& f : p.functions)
    md << fmt::format("| {} | {} | {:.4f}, {:.4f} | {} | {} |\n", markdown_text(f.function), f.floats, f.ulp, f.mpfr_ulp, f.outside,
                      night_premise_excesses(f, k).empty() ? "within the premise" : "EXCEEDS the premise");
}

void night_sweep_markdown(std::ostringstream& md, const NightSweep& sw) {
  md << "\n## Angle sweep\n\n";
  if (!sw.ran) {
    md << "SKIPPED: " << markdown_text(sw.skipped) << "\n";
    return;
  }
  // The grad pairs as the plan lists them, [gc, gs, "name"], the names (a shard's) as text.
  std::string grads = "[";
  for (const SweepGrads& g : sw.grads)
    grads += (grads.size() > 1 ? ",[" : "[") + json(g.gc).dump() + "," + json(g.gs).dump() + "," + markdown_text(json(g.name).dump()) + "]";
  grads += "]";
  md << fmt::format("Every float32 angle in [{}, {}) with grads {}: {} angle/grad pairs checked in {:.1f} s ({} range{}); max error "
                    "{:.3f} x 2^-24 S (float32-bound allows {}); {} over float32-bound; {:.6f} correctly rounded.\n",
                    sw.from, sw.to, grads, sw.angles, sw.seconds, sw.ranges.size(),
                    sw.ranges.size() == 1 ? "" : "s, the longest shard's time", sw.max_scaled_error, bound_words(),
                    sw.over_float32_bound, sw.correctly_rounded_fraction);
  if (const auto& w = sw.worst)
    md << fmt::format("\nWorst element: angle {} (bits 0x{:08x}), gc {}, gs {}: reference {}, kernel {}, {:.3f} x 2^-24 S.\n", w->angle,
                      w->angle_bits, w->gc, w->gs, w->ref, w->got, w->scaled_error);
}

}  // namespace

std::string nightly_markdown(const NightSummary& n, const std::string& dir) {
  std::ostringstream md;
  md << "# rope2d nightly " << markdown_text(n.date) << "\n\n**Status: " << n.status << "**\n\n";
  const std::string previous = n.previous.value_or("");
  bullet_list(md, "Regressions against " + markdown_text(previous), n.regressions);
  bullet_list(md, "Warnings", n.warnings);
  bullet_list(md, "Failures", n.problems);
  md << "Previous run: " << (previous.empty() ? std::string("none") : markdown_text(previous)) << ". Seed "
     << (n.seed ? json(*n.seed) : json()).dump() << ". "
     << fmt::format("{} shard{}, build {}.\n\n", n.shards, n.shards == 1 ? "" : "s", markdown_text(n.commit));
  md << "## Verifier\n\n| kernel | grad dtype | verdict | seconds | report |\n|---|---|---|---|---|\n";
  for (const NightVerify& v : n.verify)
    md << fmt::format("| {} | {} | {} | {:.1f} | {} |\n", markdown_text(v.kernel), markdown_text(dtype_label(v)),
                      name(v.verdict), v.seconds.value_or(0.0),
                      link_if_there(dir, verify_stem(v) + "/report.md", link_if_there(dir, verify_stem(v) + ".log", "none written")));
  golden_markdown(md, n.golden);
  if (n.premise) premise_markdown(md, *n.premise, dir);
  night_sweep_markdown(md, n.sweep);
  return md.str();
}

std::string nightly_junit(const NightSummary& n) {
  const std::string& date = n.date;
  JUnitSuite runs{"rope2d nightly " + date + ": verify", {}};
  for (const NightVerify& v : n.verify) {
    JUnitCase c{"rope2d.nightly.verify", v.kernel + " " + dtype_label(v)};
    c.seconds = v.seconds.value_or(0.0);
    if (v.verdict == Disposition::skipped) c.outcome = Outcome::skipped, c.message = "no GPU: CPU checks only";
    else if (v.verdict == Disposition::incorrect) c.outcome = Outcome::failure, c.message = "verdict incorrect";
    else if (v.verdict != Disposition::passed)
      c.outcome = Outcome::error, c.message = fmt::format("verdict {} (verify exited {})", name(v.verdict), v.exit);
    if (c.outcome != Outcome::passed && c.outcome != Outcome::skipped) c.detail = "log: " + verify_stem(v) + ".log";
    runs.cases.push_back(std::move(c));
  }
  JUnitSuite golden{"rope2d nightly " + date + ": golden set", {}};
  for (const NightGolden& g : n.golden.results) {
    JUnitCase c{"rope2d.nightly.golden", g.problem};
    if (g.disposition != Disposition::passed) c.outcome = Outcome::failure, c.message = std::string(name(g.disposition)) + ": " + g.integrity;
    golden.cases.push_back(std::move(c));
  }
  if (golden.cases.empty()) golden.cases.push_back({"rope2d.nightly.golden", "golden set", Outcome::skipped, n.golden.skipped});
  const NightSweep& sw = n.sweep;
  JUnitSuite sweep{"rope2d nightly " + date + ": angle sweep", {{"rope2d.nightly.sweep", "angle sweep"}}};
  JUnitCase& s = sweep.cases[0];
  bool timed_out = false;
  for (const NightSweepRange& r : sw.ranges) timed_out = timed_out || (r.ran && !r.complete);
  if (!sw.ran) s.outcome = Outcome::skipped, s.message = sw.skipped;
  else if (sw.over_float32_bound > 0) s.outcome = Outcome::failure, s.message = fmt::format("{} angles over float32-bound", sw.over_float32_bound);
  else if (timed_out) s.outcome = Outcome::failure, s.message = "time box reached (summary.md says where)";
  JUnitSuite premise{"rope2d nightly " + date + ": sincosf premise", {}};
  if (const auto& p = n.premise) {
    for (const NightPremiseFigures& f : p->functions) {
      JUnitCase c{"rope2d.nightly.premise", f.function};
      std::string over;
      for (const std::string& e : night_premise_excesses(f, p->k_ulp)) over += (over.empty() ? "" : "; ") + e;
      if (!over.empty()) c.outcome = Outcome::failure, c.message = over;
      premise.cases.push_back(std::move(c));
    }
    // No measurement to show per function: one case says why.
    if (p->disposition == Disposition::skipped || p->disposition == Disposition::failed)
      premise.cases.push_back({"rope2d.nightly.premise", "sincosf premise",
                               p->disposition == Disposition::skipped ? Outcome::skipped : Outcome::error, p->reason});
  }
  JUnitSuite regressions{"rope2d nightly " + date + ": regressions", {}};
  for (const std::string& r : n.regressions) regressions.cases.push_back({"rope2d.nightly.regression", r, Outcome::failure, r});
  if (regressions.cases.empty()) regressions.cases.push_back({"rope2d.nightly.regression", "against the previous run"});
  std::vector<JUnitSuite> suites{runs, golden};
  if (n.premise) suites.push_back(premise);
  suites.insert(suites.end(), {sweep, regressions});
  return render_junit(suites);
}

NightReport write_nightly_report(const std::string& root, NightSummary n, const std::vector<std::pair<std::string, std::string>>& extra) {
  if (!valid_run_date(n.date)) throw std::invalid_argument("nightly: the date '" + n.date.substr(0, 40) + "' names no folder");
  const fs::path dir = fs::path(root) / n.date;
  // The latest earlier night whose summary reads; one that does not is set aside with a
  // warning (never a failure of this night and of every later one) and the one before is tried.
  // A name that cannot be resolved (a link that loops) is such a summary, not an error here.
  std::vector<fs::path> earlier;
  std::error_code ec;
  if (fs::is_directory(root, ec))
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.is_directory(ec) && e.path().filename().string() < n.date && valid_run_date(e.path().filename().string()) &&
          summary_named(e.path() / "summary.json"))
        earlier.push_back(e.path());
  std::sort(earlier.rbegin(), earlier.rend());
  n.regressions.clear();
  for (const fs::path& previous : earlier) {
    try {
      const NightSummary before = read_previous_summary((previous / "summary.json").string());
      n.previous = previous.filename().string();
      n.regressions = nightly_regressions(n, before);
      break;
    } catch (const std::invalid_argument& e) {
      n.warnings.push_back("an earlier summary set aside, not compared with: " + std::string(e.what()).substr(0, 400));
    }
  }
  NightReport out;
  out.ok = n.regressions.empty() && n.problems.empty();
  n.status = out.ok ? (n.gpu ? "passed" : "skipped (no GPU)") : "FAILED";
  out.markdown = nightly_markdown(n, dir.string());
  out.path = (dir / "summary.md").string();
  std::vector<std::pair<std::string, std::string>> files = extra;
  files.insert(files.end(), {{out.path, out.markdown},
                             {(dir / "junit.xml").string(), nightly_junit(n)},
                             {(dir / "summary.json").string(), to_json(n).dump(2) + "\n"}});
  make_night_folder(root, n.date);
  for (const auto& f : files) make_output_folder(fs::path(f.first).parent_path().string());
  write_files_atomic(files);
  return out;
}

std::vector<std::pair<std::string, std::string>> nightly_merged_worst(const std::string& root, const NightSummary& merged,
                                                                      const std::vector<std::pair<std::string, json>>& shards) {
  const std::string text = merge_sweep_worst_lists(shards, SweepOptions{}.worst_per_pair);
  if (text.empty()) return {};
  const fs::path dir = fs::path(root) / merged.date / sweep_folder(merged.sweep.lo, merged.sweep.hi);
  for (const auto& [file, s] : shards)
    for (const json& r : s["sweep"]) {
      std::error_code ec;
      if (fs::equivalent(shard_sweep_list(file, r), dir / "sweep_worst.txt", ec)) return {};
    }
  return {{(dir / "sweep_worst.txt").string(), text}};
}

}  // namespace rope2d::verify
