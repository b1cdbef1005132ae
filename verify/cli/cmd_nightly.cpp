// rope2d nightly [--config FILE] [--out DIR]: the nightly correctness run on a GPU machine.
//   1. rope2d verify on the project's kernel and on every submission in the config, every
//      grad dtype, fresh seeds each night (the date), each in its own process;
//   2. a sweep of every float32 angle in [from, to) with fixed grads against the certified
//      reference (default [0, 2^14): about 1.2 billion angles), time-boxed;
//   3. a dated report under reports/nightly/<date>/ compared with the previous one: new
//      failures, worse max errors or slower runs are called out at the top.
// Exit 0 when all passed and nothing regressed, 1 otherwise, 2 on bad input.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <sstream>
#include <sys/wait.h>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "progress.hpp"
#include "rope2d/verify/nightly.hpp"
#include "rope2d/verify/report.hpp"
#include "rope2d/verify/suites.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/device.hpp"
#endif

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;
namespace fs = std::filesystem;
using nlohmann::json;

struct NightlyArgs {
  std::string config, root = "reports/nightly", date;
  bool quick = false, quiet = false;
};

struct Config {
  std::vector<std::string> submissions;
  std::vector<std::string> grad_dtypes{"bf16", "fp16", "fp32"};
  float sweep_from = 0.0f, sweep_to = 16384.0f;
  std::vector<std::pair<double, double>> sweep_grads{{0.75, -1.25}, {1.0, 0.0}, {0.0, 1.0}};
  double sweep_budget_s = 600;
};

Config read_config(const std::string& path) {
  Config c;
  if (path.empty()) return c;
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": not valid JSON: " + e.what());
  }
  auto field = [&](const char* k) -> const json* { return j.contains(k) ? &j[k] : nullptr; };
  if (auto s = field("submissions")) {
    if (!s->is_array()) throw std::invalid_argument(path + ": submissions: expected an array of paths");
    for (const auto& x : *s) {
      if (!x.is_string()) throw std::invalid_argument(path + ": submissions: expected strings, found " + x.dump());
      c.submissions.push_back(x);
    }
  }
  if (auto d = field("grad_dtypes")) {
    if (!d->is_array() || !std::all_of(d->begin(), d->end(), [](const json& x) { return x.is_string(); }))
      throw std::invalid_argument(path + ": grad_dtypes: expected an array of strings, found " + d->dump());
    c.grad_dtypes = d->get<std::vector<std::string>>();
    parse_grad_dtypes(c.grad_dtypes, path + ": grad_dtypes");  // rejects unknown names here
  }
  if (auto s = field("sweep")) {
    if (!s->is_object()) throw std::invalid_argument(path + ": sweep: expected an object");
    c.sweep_from = s->value("from", c.sweep_from);
    c.sweep_to = s->value("to", c.sweep_to);
    c.sweep_budget_s = s->value("budget_s", c.sweep_budget_s);
    if (!(c.sweep_from >= 0 && c.sweep_to > c.sweep_from))
      throw std::invalid_argument(path + ": sweep: expected 0 <= from < to");
  }
  return c;
}

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

std::string today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char d[16];
  std::strftime(d, sizeof d, "%Y-%m-%d", std::gmtime(&now));
  return d;
}

struct SweepResult {
  bool ran = false;
  std::string skipped;
  std::int64_t angles = 0;
  Metrics metrics;
  float reached = 0;
  bool complete = false;  // every angle of every grad pair checked within the time box
  double seconds = 0;
};

#ifdef ROPE2D_HAVE_CUDA
// Every float in [from, to) in chunks: the kernel on the GPU, the certified reference on the
// CPU, judged by the strict tier.
SweepResult sweep(const Config& c, bool quick, Progress& progress) {
  SweepResult r;
  const DeviceInfo dev = probe_device();
  if (!dev.available) {
    r.skipped = dev.reason;
    return r;
  }
  r.ran = true;
  const auto t0 = std::chrono::steady_clock::now();
  Testbed bed;
  const std::uint32_t first = std::bit_cast<std::uint32_t>(c.sweep_from);
  const std::uint32_t last = std::bit_cast<std::uint32_t>(quick ? std::min(c.sweep_to, 4.0f) : c.sweep_to);
  const std::int64_t chunk = std::int64_t{1} << 25;
  const std::int64_t total = static_cast<std::int64_t>(last - first) * static_cast<std::int64_t>(c.sweep_grads.size());
  for (const auto& [gc, gs] : c.sweep_grads) {
    for (std::int64_t b = first; b < last; b += chunk) {
      const std::int64_t n = std::min<std::int64_t>(chunk, last - b);
      ProblemSpec s;
      s.set = "sweep";
      s.grad_dtype = ref::Dtype::fp32;
      s.elements = n;
      Problem p;
      p.spec = s;
      p.theta.resize(n);
      p.gc.resize(n * 4);
      p.gs.resize(n * 4);
      const float fgc = static_cast<float>(gc), fgs = static_cast<float>(gs);
      parallel_chunks(n, 1 << 20, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) {
          p.theta[i] = std::bit_cast<float>(static_cast<std::uint32_t>(b + i));
          std::memcpy(&p.gc[i * 4], &fgc, 4);
          std::memcpy(&p.gs[i * 4], &fgs, 4);
        }
      });
      const Expected x = compute_expected(p);
      const DeviceRun run = bed.run(&rope2d_backward, p, {false, false, false});
      if (!run.integrity.call_error.empty()) throw std::runtime_error("sweep: " + run.integrity.call_error);
      r.metrics.merge(compare(p, x, run.out.data(), Tier::strict), 10);
      r.angles += n;
      r.reached = p.theta.back();
      progress.step(static_cast<std::size_t>(r.angles * 100 / std::max<std::int64_t>(1, total)), 100,
                    fmt::format("sweep gc={} gs={}: angles up to {}", gc, gs, r.reached));
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r.seconds > c.sweep_budget_s) return r;  // time box: the report says how far it got
    }
  }
  r.complete = true;
  return r;
}
#endif

json load_json(const fs::path& p) {
  std::ifstream in(p);
  return in ? json::parse(in, nullptr, false) : json();
}

int run(const NightlyArgs& a) {
  const Config c = read_config(a.config);
  const std::string date = a.date.empty() ? today() : a.date;
  const fs::path dir = fs::path(a.root) / date;
  fs::create_directories(dir);
  Progress progress(a.quiet);
  std::uint64_t seed = 1469598103934665603ull;  // FNV-1a of the date: fresh inputs each night, reproducible
  for (char ch : date) seed = (seed ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  seed &= 0xffffffff;
  json summary;
  summary["date"] = date;
  summary["seed"] = seed;
  std::vector<std::string> problems;
  bool gpu = true;

  // 1. The verifier, one process per kernel.
  std::vector<std::string> kernels{""};
  for (const auto& s : c.submissions) kernels.push_back(s);
  for (const auto& k : kernels) {
    const std::string name = k.empty() ? "rope2d" : fs::path(k).stem().string();
    const std::string out = (dir / ("verify-" + name)).string();
    std::string cmd = fmt::format("'{}' verify {} --out '{}' --grad-dtypes {} --seed {} --quiet{} > '{}/verify-{}.log' 2>&1", self_exe(),
                                  k.empty() ? "" : "'" + k + "'", out, fmt::join(c.grad_dtypes, ","), seed,
                                  a.quick ? " --quick" : "", dir.string(), name);
    progress.step(0, 1, "verify " + name);
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = std::system(cmd.c_str());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const json rep = load_json(fs::path(out) / "report.json");
    json entry = {{"kernel", name}, {"exit", WEXITSTATUS(rc)}, {"seconds", secs}};
    if (rep.is_object()) {
      entry["verdict"] = rep["verdict"];
      for (const auto& r : rep["results"])
        entry["sets"][r["name"].get<std::string>()] = {
            {"disposition", r["disposition"]}, {"max", r.value("max_scaled_error", json(0))}, {"elements", r.value("elements", 0)}};
    } else {
      entry["verdict"] = "skipped";  // no GPU: verify checked the CPU side only
      gpu = false;
    }
    if (rep.is_object() && rep["verdict"] != "passed") problems.push_back(name + ": verdict " + rep["verdict"].get<std::string>());
    if (!rep.is_object() && WEXITSTATUS(rc) != 0) problems.push_back(name + ": verify exited " + std::to_string(WEXITSTATUS(rc)));
    summary["verify"].push_back(entry);
  }

  // 2. The exhaustive angle sweep.
  SweepResult sw;
#ifdef ROPE2D_HAVE_CUDA
  if (gpu) sw = sweep(c, a.quick, progress);
#endif
  if (!sw.ran) sw.skipped = sw.skipped.empty() ? "no GPU" : sw.skipped;
  progress.done();
  summary["sweep"] = {{"ran", sw.ran},
                      {"skipped", sw.skipped},
                      {"from", c.sweep_from},
                      {"to", c.sweep_to},
                      {"reached", sw.reached},
                      {"complete", sw.complete},
                      {"angles", sw.angles},
                      {"seconds", sw.seconds},
                      {"max_scaled_error", sw.metrics.max_scaled},
                      {"over_strict", sw.metrics.over[static_cast<int>(Tier::strict)]},
                      {"correctly_rounded_fraction", sw.metrics.count ? double(sw.metrics.correctly_rounded) / sw.metrics.count : 0.0}};
  if (sw.ran && !sw.metrics.passes(Tier::strict)) problems.push_back("sweep: elements over the strict bound");
  if (sw.ran && !sw.complete) problems.push_back(fmt::format("sweep: time box reached at angle {}", sw.reached));

  // 3. Against the previous night.
  std::vector<std::string> regressions;
  fs::path previous;
  for (const auto& e : fs::directory_iterator(a.root))
    if (e.is_directory() && e.path().filename().string() < date && fs::exists(e.path() / "summary.json") &&
        (previous.empty() || e.path().filename() > previous.filename()))
      previous = e.path();
  if (!previous.empty()) {
    summary["previous"] = previous.filename().string();
    regressions = nightly_regressions(summary, load_json(previous / "summary.json"));
  }
  summary["regressions"] = regressions;
  summary["problems"] = problems;
  const bool ok = regressions.empty() && problems.empty();
  summary["status"] = ok ? (gpu ? "passed" : "skipped (no GPU)") : "FAILED";

  // Reports: summary.json, summary.md, junit.xml.
  std::ofstream(dir / "summary.json") << summary.dump(2) << "\n";
  std::ostringstream md;
  md << "# rope2d nightly " << date << "\n\n**Status: " << summary["status"].get<std::string>() << "**\n\n";
  if (!regressions.empty()) {
    md << "## Regressions against " << previous.filename().string() << "\n\n";
    for (const auto& r : regressions) md << "- " << r << "\n";
    md << "\n";
  }
  if (!problems.empty()) {
    md << "## Failures\n\n";
    for (const auto& p : problems) md << "- " << p << "\n";
    md << "\n";
  }
  md << "Previous run: " << (previous.empty() ? std::string("none") : previous.filename().string()) << ". Seed " << seed << ".\n\n";
  md << "## Verifier\n\n| kernel | verdict | seconds | report |\n|---|---|---|---|\n";
  for (const auto& v : summary["verify"])
    md << fmt::format("| {} | {} | {:.1f} | verify-{}/report.md |\n", v["kernel"].get<std::string>(), v["verdict"].get<std::string>(),
                      v["seconds"].get<double>(), v["kernel"].get<std::string>());
  md << "\n## Angle sweep\n\n";
  if (sw.ran)
    md << fmt::format("Every float32 angle in [{}, {}) with grads {}: {} angles checked up to {} in {:.1f} s; max error {:.3f} x 2^-24 S "
                      "(strict bound 5); {} over the strict bound; {:.6f} correctly rounded.\n",
                      c.sweep_from, c.sweep_to, json(c.sweep_grads).dump(), sw.angles, sw.reached, sw.seconds, sw.metrics.max_scaled,
                      sw.metrics.over[static_cast<int>(Tier::strict)],
                      sw.metrics.count ? double(sw.metrics.correctly_rounded) / sw.metrics.count : 0.0);
  else
    md << "SKIPPED: " << sw.skipped << "\n";
  std::ofstream(dir / "summary.md") << md.str();
  std::ofstream x(dir / "junit.xml");
  x << fmt::format("<?xml version=\"1.0\"?>\n<testsuite name=\"rope2d nightly {}\" tests=\"{}\" failures=\"{}\">\n", date,
                   summary["verify"].size() + 1, problems.size() + regressions.size());
  for (const auto& v : summary["verify"])
    x << fmt::format("  <testcase name=\"verify {}\">{}</testcase>\n", v["kernel"].get<std::string>(),
                     v["verdict"] == "passed" || v["verdict"] == "skipped" ? "" : "<failure message=\"verdict " + v["verdict"].get<std::string>() + "\"/>");
  x << fmt::format("  <testcase name=\"angle sweep\">{}</testcase>\n", !sw.ran ? "<skipped/>" : sw.metrics.passes(Tier::strict) ? "" : "<failure message=\"over the strict bound\"/>");
  for (const auto& r : regressions) x << fmt::format("  <testcase name=\"regression\"><failure message=\"{}\"/></testcase>\n", r);
  x << "</testsuite>\n";
  std::cout << md.str() << "\nreport: " << (dir / "summary.md").string() << "\n";
  return ok ? Exit::ok : Exit::incorrect;
}

}  // namespace

Action add_nightly(CLI::App& app) {
  auto a = std::make_shared<NightlyArgs>();
  app.add_option("--config", a->config, "JSON: {submissions: [...], grad_dtypes: [...], sweep: {from, to, budget_s}}");
  app.add_option("--root", a->root, "where dated reports go")->capture_default_str();
  app.add_option("--date", a->date, "name of this run's folder (default: today, UTC)");
  app.add_flag("--quick", a->quick, "small shapes and a short sweep (for tests)");
  app.add_flag("--quiet", a->quiet, "no progress display");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
