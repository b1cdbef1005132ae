// rope2d nightly [--config FILE] [--out DIR]: the nightly correctness run on a GPU machine.
//   1. rope2d verify on the project's kernel and on every submission in the config, every
//      grad dtype, fresh seeds each night (the date), each in its own process;
//   2. a sweep of every float32 angle in [from, to) (or all 2^32 bit patterns, "angles":
//      "all") with fixed grads against the certified reference, judged on the GPU
//      (default [0, 2^14): about 2.4 billion angle/grad pairs), time-boxed; its worst-case
//      list goes beside the summary (sweep_worst.txt);
//   3. a dated report under reports/nightly/<date>/ compared with the previous one: new
//      failures, worse max errors or slower runs are called out at the top.
// Exit 0 when all passed and nothing regressed, 1 otherwise, 2 on bad input.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "progress.hpp"
#include "sweep_summary.hpp"
#include "rope2d/verify/metrics.hpp"
#include "rope2d/verify/nightly.hpp"
#include "rope2d/verify/report.hpp"
#include "rope2d/verify/sweep.hpp"  // the options and result; running it needs CUDA

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
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

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

std::string today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char d[16];
  std::strftime(d, sizeof d, "%Y-%m-%d", std::gmtime(&now));
  return d;
}

json load_json(const fs::path& p) {
  std::ifstream in(p);
  return in ? json::parse(in, nullptr, false) : json();
}

struct Night {
  std::string date;
  fs::path dir, previous;
  std::uint64_t seed = 0;
  json summary;
  std::vector<std::string> problems, regressions;
  bool gpu = true;
};

// 1. The verifier, one process per kernel (an argument vector: no shell reads the paths).
void verify_kernels(const NightlyConfig& c, const NightlyArgs& a, Night& n, Progress& progress) {
  std::vector<std::string> kernels{""};
  for (const auto& s : c.submissions) kernels.push_back(s);
  std::string dtypes;
  for (const auto& d : c.grad_dtypes) dtypes += (dtypes.empty() ? "" : ",") + d;
  for (const auto& k : kernels) {
    const std::string name = k.empty() ? "rope2d" : fs::path(k).stem().string();
    const std::string out = (n.dir / ("verify-" + name)).string();
    std::vector<std::string> argv{self_exe(), "verify"};
    if (!k.empty()) argv.push_back(k);
    for (const std::string& x : {std::string("--out"), out, std::string("--grad-dtypes"), dtypes, std::string("--seed"),
                                 std::to_string(n.seed), std::string("--quiet"),
                                 std::string("--tier"), std::string(verify::name(Tier::float32_bound))})
      argv.push_back(x);
    if (a.quick) argv.push_back("--quick");
    progress.step(0, 1, "verify " + name);
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = run_logged(argv, (n.dir / ("verify-" + name + ".log")).string());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const json rep = load_json(fs::path(out) / "report.json");
    json entry = {{"kernel", name}, {"exit", rc}, {"seconds", secs}};
    if (rep.is_object()) {
      entry["verdict"] = rep["verdict"];
      for (const auto& r : rep["results"])
        entry["sets"][r["name"].get<std::string>()] = {
            {"disposition", r["disposition"]}, {"max", r.value("max_scaled_error", json(0))}, {"elements", r.value("elements", 0)}};
    } else {
      // No report: no GPU (verify checked the CPU side only; exit 0), or it failed before one.
      entry["verdict"] = rc == 0 ? "skipped" : rc == 1 ? "incorrect" : "failed";
      n.gpu = false;
    }
    if (rep.is_object() && rep["verdict"] != "passed") n.problems.push_back(name + ": verdict " + rep["verdict"].get<std::string>());
    if (!rep.is_object() && rc != 0) n.problems.push_back(name + ": verify exited " + std::to_string(rc));
    n.summary["verify"].push_back(entry);
  }
}

// 2. The exhaustive angle sweep.
SweepResult sweep(const NightlyConfig& c, const NightlyArgs& a, Night& n, Progress& progress) {
  SweepResult sw;
  std::string device = "no GPU";
#ifdef ROPE2D_HAVE_CUDA
  const DeviceInfo dev = n.gpu ? probe_device() : DeviceInfo{};
  if (dev.available) device = dev.name;
  if (n.gpu && dev.available) {
    SweepOptions o;
    o.lo = c.sweep_lo;
    o.hi = c.sweep_hi;
    o.budget_s = c.sweep_budget_s;
    o.quick = a.quick;
    sw = sweep_angles(&rope2d_backward, o, [&](std::int64_t done, std::int64_t total, const std::string& what) {
      progress.step(static_cast<std::size_t>(done * 100 / std::max<std::int64_t>(1, total)), 100, what);
    });
  } else if (n.gpu) {
    sw.skipped = dev.reason;
  }
#else
  (void)a, (void)progress;
#endif
  if (!sw.ran) sw.skipped = sw.skipped.empty() ? "no GPU" : sw.skipped;
  n.summary["sweep"] = sweep_json(sw);
  n.summary["sweep"]["from"] = c.sweep_from;
  n.summary["sweep"]["to"] = c.sweep_to;
  n.summary["sweep"]["angles_all"] = c.sweep_all;
  if (sw.ran) write_sweep_files(n.dir.string(), sw, "rope2d nightly" + (a.config.empty() ? std::string() : " --config " + a.config),
                                device);
  if (sw.ran && !sw.metrics.passes(Tier::float32_bound)) n.problems.push_back("sweep: elements over the float32-bound tier");
  if (sw.ran && !sw.complete) n.problems.push_back(fmt::format("sweep: time box reached at pattern {:#x}", sw.next));
  return sw;
}

// 3. Against the previous night: the newest earlier dated folder with a summary.
void compare_with_previous(const NightlyArgs& a, Night& n) {
  for (const auto& e : fs::directory_iterator(a.root))
    if (e.is_directory() && e.path().filename().string() < n.date && fs::exists(e.path() / "summary.json") &&
        (n.previous.empty() || e.path().filename() > n.previous.filename()))
      n.previous = e.path();
  if (!n.previous.empty()) {
    n.summary["previous"] = n.previous.filename().string();
    n.regressions = nightly_regressions(n.summary, load_json(n.previous / "summary.json"));
  }
  n.summary["regressions"] = n.regressions;
  n.summary["problems"] = n.problems;
}

// The float32-bound tier's allowance, from the tolerance table, in units of 2^-24.
std::string bound_words() {
  const TierRule& b = rule(Tier::float32_bound);
  return fmt::format("{:.7g} x 2^-24 S + {:.3g} x 2^-24 |ref|", b.scale_coeff * 0x1p24, b.ref_coeff * 0x1p24);
}

std::string summary_markdown(const Night& n, const SweepResult& sw) {
  std::ostringstream md;
  md << "# rope2d nightly " << n.date << "\n\n**Status: " << n.summary["status"].get<std::string>() << "**\n\n";
  if (!n.regressions.empty()) {
    md << "## Regressions against " << n.previous.filename().string() << "\n\n";
    for (const auto& r : n.regressions) md << "- " << r << "\n";
    md << "\n";
  }
  if (!n.problems.empty()) {
    md << "## Failures\n\n";
    for (const auto& p : n.problems) md << "- " << p << "\n";
    md << "\n";
  }
  md << "Previous run: " << (n.previous.empty() ? std::string("none") : n.previous.filename().string()) << ". Seed " << n.seed << ".\n\n";
  md << "## Verifier\n\n| kernel | verdict | seconds | report |\n|---|---|---|---|\n";
  for (const auto& v : n.summary["verify"])
    md << fmt::format("| {} | {} | {:.1f} | verify-{}/report.md |\n", v["kernel"].get<std::string>(), v["verdict"].get<std::string>(),
                      v["seconds"].get<double>(), v["kernel"].get<std::string>());
  md << "\n## Angle sweep\n\n" << sweep_markdown(sw);
  if (sw.ran) md << "\nfloat32-bound allows " << bound_words() << ". Worst-case list: sweep_worst.txt.\n";
  return md.str();
}

// junit.xml: one suite for the verifier runs, one for the sweep, one for the regressions. A
// kernel whose verify failed to run is an <error>, one judged incorrect a <failure>.
std::string summary_junit(const Night& n, const SweepResult& sw) {
  JUnitSuite runs{"rope2d nightly " + n.date + ": verify", {}};
  for (const auto& v : n.summary["verify"]) {
    JUnitCase c{"rope2d.nightly.verify", v["kernel"].get<std::string>()};
    const std::string verdict = v["verdict"].get<std::string>();
    c.seconds = v["seconds"].get<double>();
    if (verdict == "skipped") c.outcome = Outcome::skipped, c.message = "no GPU: CPU checks only";
    else if (verdict == "incorrect") c.outcome = Outcome::failure, c.message = "verdict incorrect";
    else if (verdict != "passed") c.outcome = Outcome::error, c.message = fmt::format("verdict {} (verify exited {})", verdict, v["exit"].get<int>());
    if (c.outcome != Outcome::passed && c.outcome != Outcome::skipped)
      c.detail = "log: verify-" + c.name + ".log";
    runs.cases.push_back(std::move(c));
  }
  JUnitSuite sweep{"rope2d nightly " + n.date + ": angle sweep", {{"rope2d.nightly.sweep", "angle sweep"}}};
  JUnitCase& s = sweep.cases[0];
  if (!sw.ran) s.outcome = Outcome::skipped, s.message = sw.skipped;
  else if (!sw.metrics.passes(Tier::float32_bound))
    s.outcome = Outcome::failure, s.message = fmt::format("{} angles over float32-bound", sw.metrics.over[static_cast<int>(Tier::float32_bound)]);
  else if (!sw.complete) s.outcome = Outcome::failure, s.message = fmt::format("time box reached at pattern {:#x}", sw.next);
  JUnitSuite regressions{"rope2d nightly " + n.date + ": regressions", {}};
  for (const auto& r : n.regressions) regressions.cases.push_back({"rope2d.nightly.regression", r, Outcome::failure, r});
  if (regressions.cases.empty()) regressions.cases.push_back({"rope2d.nightly.regression", "against the previous run"});
  const JUnitSuite suites[] = {runs, sweep, regressions};
  return render_junit(suites);
}

int run(const NightlyArgs& a) {
  const NightlyConfig c = read_nightly_config(a.config);
  Night n;
  n.date = a.date.empty() ? today() : a.date;
  if (!valid_run_date(n.date)) throw std::invalid_argument("--date: expected YYYY-MM-DD, found '" + n.date + "'");
  n.dir = fs::path(a.root) / n.date;
  fs::create_directories(n.dir);
  n.seed = nightly_seed(n.date);
  n.summary["date"] = n.date;
  n.summary["seed"] = n.seed;
  Progress progress(a.quiet);
  verify_kernels(c, a, n, progress);
  const SweepResult sw = sweep(c, a, n, progress);
  progress.done();
  compare_with_previous(a, n);
  const bool ok = n.regressions.empty() && n.problems.empty();
  n.summary["status"] = ok ? (n.gpu ? "passed" : "skipped (no GPU)") : "FAILED";
  write_file_atomic((n.dir / "summary.json").string(), n.summary.dump(2) + "\n");
  const std::string md = summary_markdown(n, sw);
  write_file_atomic((n.dir / "summary.md").string(), md);
  write_file_atomic((n.dir / "junit.xml").string(), summary_junit(n, sw));
  std::cout << md << "\nreport: " << (n.dir / "summary.md").string() << "\n";
  return ok ? Exit::ok : Exit::incorrect;
}

}  // namespace

Action add_nightly(CLI::App& app) {
  auto a = std::make_shared<NightlyArgs>();
  app.add_option("--config", a->config, "JSON: {submissions: [...], grad_dtypes: [...], sweep: {from, to | angles: \"all\", budget_s}}");
  app.add_option("--out", a->root, "where dated reports go")->capture_default_str();
  app.add_option("--root", a->root, "deprecated: --out")->group("")->each([](const std::string&) {
    std::cerr << "rope2d nightly: --root is deprecated; use --out\n";
  });
  app.add_option("--date", a->date, "name of this run's folder, YYYY-MM-DD (default: today, UTC)");
  app.add_flag("--quick", a->quick, "small shapes and a short sweep (for tests)");
  app.add_flag("--quiet", a->quiet, "no progress display");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
