// rope2d report DIR [--out DIR2] [--file NAME...]: draws a report again from its report.json
// (Markdown, HTML, JUnit, plots), e.g. after a writer was fixed. The JSON is validated as it is
// read: a missing or wrong-typed field exits 2 naming the file and the field.
// rope2d report --site ROOT: the nightly dashboard over every night under ROOT, ROOT/index.html.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "products/nightly/nightly_site.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "codec/validate.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;
namespace fs = std::filesystem;

struct ReportArgs {
  std::string dir, out, site;
  std::vector<std::string> files;
};

int run_site(const ReportArgs& a) {
  if (!a.dir.empty() || !a.out.empty() || !a.files.empty())
    throw std::invalid_argument("--site: expected no report folder, --out or --file beside it, found one");
  require_output_folder(a.site, "--site");
  if (!fs::is_directory(a.site)) throw std::invalid_argument("--site: expected a nightly root folder, found nothing at " + a.site);
  const std::string index = write_nightly_site(a.site);  // written (or refused) before a word is said
  std::cout << "wrote " << index << "\n";
  return Exit::ok;
}

int run(const ReportArgs& a) {
  if (!a.site.empty()) return run_site(a);
  if (a.dir.empty()) throw std::invalid_argument("report: expected a report folder (or --site ROOT), found none");
  const std::string source = (fs::path(a.dir) / "report.json").string();
  const Report r = read_report_json(source);
  const fs::path out(a.out.empty() ? a.dir : a.out);
  for (const auto& f : a.files) {
    bool known = false;
    for (const ReportWriter& w : report_writers()) known |= w.file == f;
    if (!known || f == "report.json") throw std::invalid_argument("--file: expected the name of a file a report holds (not report.json), found '" + f + "'");
  }
  // Every file to be drawn is checked before the first is written: a regular file or nothing.
  const std::string label = a.out.empty() ? "" : "--out";
  std::vector<const ReportWriter*> drawn;
  for (const ReportWriter& w : report_writers()) {
    if (w.file == "report.json") continue;  // the source: never rewritten
    if (!a.files.empty() && std::find(a.files.begin(), a.files.end(), w.file) == a.files.end()) continue;
    if (w.needs_plot_data && !r.has_plot_data) {
      std::cout << "not drawn: " << w.file << " (" << source << " holds no error histograms; it predates them)\n";
      continue;
    }
    drawn.push_back(&w);
  }
  require_output_folder(out.string(), label);
  for (const ReportWriter* w : drawn) require_output_file((out / w->file).string(), label.empty() ? "" : label + " " + out.string() + ":");
  make_output_folder(out.string(), label);
  for (const ReportWriter* w : drawn) {
    const std::string path = (out / w->file).string();
    write_file_atomic(path, {w->render(r)});  // throws invalid_argument: exit 2 for an unwritable folder
    std::cout << "wrote " << path << "\n";
  }
  return Exit::ok;
}

}  // namespace

Action add_report(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  app.add_option("dir", a->dir, "a report folder holding report.json");
  app.add_option("--site", a->site, "a nightly root: write the dashboard over its nights, ROOT/index.html");
  app.add_option("--out", a->out, "write here instead of DIR");
  app.add_option("--file", a->files, "only these files (report.md, report.html, junit.xml, trace.jsonl, error_histogram.svg, error_by_angle.svg)");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
