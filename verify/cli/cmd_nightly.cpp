// rope2d nightly [--config FILE] [--out DIR] [--shard i/N | --gpus all|0,2,...]: the nightly
// correctness run on a GPU machine.
//   1. rope2d verify on the project's kernel and on every submission in the config, one process
//      per kernel and grad dtype, fresh seeds each night (the date);
//   2. the committed golden set against the reference, problem by problem (no GPU needed);
//   3. a sweep of every float32 angle in [from, to) with fixed grads against the certified
//      reference (default [0, 2^14): about 1.2 billion angles), time-boxed;
//   4. a dated report under reports/nightly/<date>/ compared with the previous one: new
//      failures, worse max errors or slower runs are called out at the top.
// --shard i/N does shard i's share of that (nightly_shard.hpp) and writes shard-i-of-N.json;
// `rope2d nightly merge` makes the report of the shards; --gpus runs one shard per GPU as child
// processes and merges them. One process without either is the merge of one shard.
// Exit 0 when all passed and nothing regressed, 1 otherwise, 2 on bad input; a shard exits 0
// once its result is written (the merge judges it).
#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "progress.hpp"
#include "sweep_summary.hpp"
#include "rope2d/ref/input.hpp"
#include "rope2d/verify/check.hpp"
#include "rope2d/verify/metrics.hpp"
#include "rope2d/verify/nightly.hpp"
#include "rope2d/verify/nightly_input.hpp"
#include "rope2d/verify/nightly_shard.hpp"
#include "rope2d/verify/report.hpp"
#include "rope2d/verify/spawn.hpp"
#include "rope2d/verify/sweep.hpp"  // the options and result; running it needs CUDA
#include "rope2d/verify/validate.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
#endif

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;
namespace fs = std::filesystem;
using nlohmann::json;

struct NightlyArgs {
  std::string config, root = "reports/nightly", date, shard, gpus, golden = "data/golden-smoke";
  bool quick = false, quiet = false;
};

struct MergeArgs {
  std::string root = "reports/nightly", date;
  std::vector<std::string> files;
  bool quiet = false;
};

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

std::string today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char d[16];
  std::strftime(d, sizeof d, "%Y-%m-%d", std::gmtime(&now));
  return d;
}

std::string run_date(const std::string& given) {
  const std::string d = given.empty() ? today() : given;
  if (!valid_run_date(d)) throw std::invalid_argument("--date: expected YYYY-MM-DD, found '" + d + "'");
  return d;
}

json load_json(const fs::path& p) {
  std::ifstream in(p);
  return in ? json::parse(in, nullptr, false) : json();
}

std::string shard_file(ShardId s) { return fmt::format("shard-{}-of-{}.json", s.index, s.count); }

json plan_of(const NightlyArgs& a) {
  const NightlyConfig c = read_nightly_config(a.config);
  std::vector<std::string> files;
  if (fs::exists(fs::path(a.golden) / "manifest.json"))
    for (const GoldenFile& f : open_golden(a.golden).files) files.push_back(f.file);
  return nightly_plan(c, a.quick, a.golden, files);
}

// 1. One verifier run, in its own process (an argument vector: no shell reads the paths).
json verify_one(const json& item, const fs::path& dir, std::uint64_t seed, bool quick) {
  const std::string name = item["kernel"].get<std::string>() + "-" + item["grad_dtype"].get<std::string>();
  const std::string out = (dir / ("verify-" + name)).string(), path = item["path"];
  std::vector<std::string> argv{self_exe(), "verify"};
  for (const std::string& x : {std::string("--out"), out, std::string("--grad-dtypes"), item["grad_dtype"].get<std::string>(),
                               std::string("--seed"), std::to_string(seed), std::string("--quiet"), std::string("--tier"),
                               std::string(verify::name(Tier::float32_bound))})
    argv.push_back(x);
  if (quick) argv.push_back("--quick");
  // Last, after "--": a path that starts with a dash is a path, never an option.
  if (!path.empty()) argv.insert(argv.end(), {"--", path});
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run_logged(argv, (dir / ("verify-" + name + ".log")).string()).code();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const json rep = load_json(fs::path(out) / "report.json");
  json entry = {{"kernel", item["kernel"]}, {"grad_dtype", item["grad_dtype"]}, {"exit", rc}, {"seconds", secs}, {"report", rep.is_object()}};
  if (rep.is_object()) {
    entry["verdict"] = rep["verdict"];
    entry["sets"] = json::object();
    for (const auto& r : rep["results"])
      entry["sets"][r["name"].get<std::string>()] = {
          {"disposition", r["disposition"]}, {"max", r.value("max_scaled_error", json(0))}, {"elements", r.value("elements", 0)}};
  } else {
    // No report: no GPU (verify checked the CPU side only; exit 0), or it failed before one.
    entry["verdict"] = rc == 0 ? "skipped" : rc == 1 ? "incorrect" : "failed";
  }
  return entry;
}

// 2. The golden problems of the shard against the reference.
json golden_part(const json& plan, const std::vector<json>& items) {
  json results = json::array();
  std::set<std::string> mine;
  for (const json& it : items)
    if (it["kind"] == "golden") mine.insert(it["file"].get<std::string>());
  if (mine.empty()) return {{"results", results}};
  GoldenSet set = open_golden(plan["golden"]["dir"]);
  std::erase_if(set.files, [&](const GoldenFile& f) { return !mine.count(f.file); });
  std::vector<std::string> order;
  for (const GoldenFile& f : set.files) order.push_back(f.file);
  const Report r = check_golden_against_reference(set);
  for (std::size_t k = 0; k < r.results.size(); ++k) {
    const SetResult& s = r.results[k];
    results.push_back({{"file", order[k]},
                       {"problem", s.name},
                       {"disposition", s.disposition(Tier::float32_bound)},
                       {"integrity", s.integrity},
                       {"elements", s.metrics.count},
                       {"max", s.metrics.max_scaled},
                       {"worst", s.metrics.worst ? json(s.metrics.worst->line(s.name, "WORST")) : json()}});
  }
  return {{"results", results}};
}

// 3. The shard's range of the exhaustive angle sweep.
// Its worst-case list (CORE-MATH form) goes to sweep-<lo>-<hi>/ under the night's folder; it
// keeps SweepOptions' worst_per_pair cases per grad pair, as the merge of the lists does.
json sweep_one(const json& plan, const json& item, const DeviceInfo& dev, const fs::path& dir, Progress& progress) {
  SweepResult sw;
  SweepOptions o;
  o.lo = item["lo"].get<std::uint64_t>();
  o.hi = item["hi"].get<std::uint64_t>();
  o.budget_s = plan["sweep"]["budget_s"];
  o.quick = plan.value("quick", false);  // a sample of the range
  o.grads = plan_sweep_grads(plan);
#ifdef ROPE2D_HAVE_CUDA
  if (dev.available) {
    sw = sweep_angles(&rope2d_backward, o, [&](std::int64_t done, std::int64_t total, const std::string& what) {
      progress.step(static_cast<std::size_t>(done * 100 / std::max<std::int64_t>(1, total)), 100, what);
    });
    write_sweep_files((dir / sweep_folder(o.lo, o.hi)).string(), sw, "rope2d nightly", dev.name);
  }
#else
  (void)progress, (void)dir;
#endif
  if (!sw.ran) sw.skipped = dev.reason.empty() ? "no GPU" : dev.reason;
  json worst;
  if (sw.metrics.worst) {
    const ElementReport& w = *sw.metrics.worst;
    int grad = 0;
    for (std::size_t g = 0; g < o.grads.size(); ++g)
      if (static_cast<float>(o.grads[g].gc) == static_cast<float>(w.in.gc) && static_cast<float>(o.grads[g].gs) == static_cast<float>(w.in.gs))
        grad = static_cast<int>(g);
    worst = {{"angle", w.in.t}, {"angle_bits", std::bit_cast<std::uint32_t>(w.in.t)}, {"grad", grad}, {"gc", w.in.gc},
             {"gs", w.in.gs},   {"ref", w.ref},                                      {"got", w.got}, {"scaled_error", w.scaled_error}};
  }
  return {{"lo", item["lo"]},
          {"hi", item["hi"]},
          {"ran", sw.ran},
          {"skipped", sw.skipped},
          {"angles", sw.angles},
          {"complete", sw.complete},
          {"reached", sw.reached},
          {"next", sw.next},
          {"seconds", sw.seconds},
          {"count", sw.metrics.count},
          {"correctly_rounded", sw.metrics.correctly_rounded},
          {"max_scaled_error", sw.metrics.max_scaled},
          {"over_float32_bound", sw.metrics.over[static_cast<int>(Tier::float32_bound)]},
          {"worst", worst}};
}

// Shard s's work: its result as merge_nightly_shards reads it.
json run_shard(const NightlyArgs& a, const json& plan, ShardId s, const std::string& date) {
  const fs::path dir = fs::path(a.root) / date;
  fs::create_directories(dir);
  const std::uint64_t seed = nightly_seed(date);
  const std::vector<json> items = nightly_items(plan, s);
  Progress progress(a.quiet);
  json verify = json::array(), sweep = json::array();
  for (std::size_t k = 0; k < items.size(); ++k)
    if (items[k]["kind"] == "verify") {
      progress.step(k, items.size(), "verify " + items[k]["kernel"].get<std::string>() + " " + items[k]["grad_dtype"].get<std::string>());
      verify.push_back(verify_one(items[k], dir, seed, a.quick));
    }
  progress.step(0, 1, "golden set against the reference");
  const json golden = golden_part(plan, items);
  // The GPU, looked for after the verifier children ran (they each hold it in turn).
#ifdef ROPE2D_HAVE_CUDA
  const DeviceInfo dev = probe_device();
#else
  const DeviceInfo dev{false, "built without CUDA"};
#endif
  const bool gpu = dev.available;
  for (const json& it : items)
    if (it["kind"] == "sweep") sweep.push_back(sweep_one(plan, it, dev, dir, progress));
  progress.done();
  return {{"schema", nightly_shard_schema},
          {"commit", generator_version()},
          {"config_digest", plan_digest(plan)},
          {"config", plan},
          {"date", date},
          {"seed", seed},
          {"shard", {{"index", s.index}, {"count", s.count}}},
          {"items", items},
          {"cuda_visible_devices", std::getenv("CUDA_VISIBLE_DEVICES") ? json(std::getenv("CUDA_VISIBLE_DEVICES")) : json()},
          {"gpu", gpu},
          {"verify", verify},
          {"golden", golden},
          {"sweep", sweep}};
}

// The float32-bound tier's allowance, from the tolerance table, in units of 2^-24.
std::string bound_words() {
  const TierRule& b = rule(Tier::float32_bound);
  return fmt::format("{:.7g} x 2^-24 S + {:.3g} x 2^-24 |ref|", b.scale_coeff * 0x1p24, b.ref_coeff * 0x1p24);
}

// A link to a file of the night's folder, or why there is none (it was never written).
std::string link_if_there(const fs::path& dir, const std::string& rel, const std::string& absent) {
  // <...>: a destination that may hold spaces (CommonMark).
  return fs::exists(dir / rel) ? "[" + rel + "](<" + rel + ">)" : absent;
}

std::string summary_markdown(const json& n, const fs::path& dir) {
  std::ostringstream md;
  md << "# rope2d nightly " << n["date"].get<std::string>() << "\n\n**Status: " << n["status"].get<std::string>() << "**\n\n";
  const std::string previous = n.value("previous", std::string());
  if (!n["regressions"].empty()) {
    md << "## Regressions against " << previous << "\n\n";
    for (const auto& r : n["regressions"]) md << "- " << r.get<std::string>() << "\n";
    md << "\n";
  }
  if (!n["problems"].empty()) {
    md << "## Failures\n\n";
    for (const auto& p : n["problems"]) md << "- " << p.get<std::string>() << "\n";
    md << "\n";
  }
  md << "Previous run: " << (previous.empty() ? std::string("none") : previous) << ". Seed " << n["seed"] << ". "
     << fmt::format("{} shard{}, build {}.\n\n", n["shards"].get<int>(), n["shards"].get<int>() == 1 ? "" : "s", n["commit"].get<std::string>());
  md << "## Verifier\n\n| kernel | grad dtype | verdict | seconds | report |\n|---|---|---|---|---|\n";
  for (const auto& v : n["verify"]) {
    const std::string stem = "verify-" + v["kernel"].get<std::string>() + "-" + v["grad_dtype"].get<std::string>();
    md << fmt::format("| {} | {} | {} | {:.1f} | {} |\n", v["kernel"].get<std::string>(), v["grad_dtype"].get<std::string>(),
                      v["verdict"].get<std::string>(), v["seconds"].get<double>(),
                      link_if_there(dir, stem + "/report.md", link_if_there(dir, stem + ".log", "none written")));
  }
  md << "\n## Golden set against the reference\n\n";
  const json& g = n["golden"];
  if (!g["skipped"].get<std::string>().empty()) {
    md << "SKIPPED: " << g["skipped"].get<std::string>() << "\n";
  } else {
    std::size_t passed = 0;
    for (const auto& r : g["results"]) passed += r["disposition"] == "passed";
    md << fmt::format("{}: {} problems, every stored result recomputed by the reference: {} passed.\n", g["dir"].get<std::string>(),
                      g["results"].size(), passed);
  }
  md << "\n## Angle sweep\n\n";
  const json& sw = n["sweep"];
  if (sw["ran"]) {
    md << fmt::format("Every float32 angle in [{}, {}) with grads {}: {} angle/grad pairs checked in {:.1f} s ({} range{}); max error "
                      "{:.3f} x 2^-24 S (float32-bound allows {}); {} over float32-bound; {:.6f} correctly rounded.\n",
                      sw["from"].get<double>(), sw["to"].get<double>(), sw["grads"].dump(),
                      sw["angles"].get<std::int64_t>(), sw["seconds"].get<double>(), sw["ranges"].size(),
                      sw["ranges"].size() == 1 ? "" : "s, the longest shard's time", sw["max_scaled_error"].get<double>(),
                      bound_words(), sw["over_float32_bound"].get<std::int64_t>(), sw["correctly_rounded_fraction"].get<double>());
    if (sw["worst"].is_object())
      md << fmt::format("\nWorst element: angle {} (bits 0x{:08x}), gc {}, gs {}: reference {}, kernel {}, {:.3f} x 2^-24 S.\n",
                        sw["worst"]["angle"].get<double>(), sw["worst"]["angle_bits"].get<std::uint32_t>(), sw["worst"]["gc"].get<double>(),
                        sw["worst"]["gs"].get<double>(), sw["worst"]["ref"].get<double>(), sw["worst"]["got"].get<double>(),
                        sw["worst"]["scaled_error"].get<double>());
  } else {
    md << "SKIPPED: " << sw["skipped"].get<std::string>() << "\n";
  }
  return md.str();
}

// junit.xml: one suite each for the verifier runs, the golden set, the sweep and the
// regressions. A kernel whose verify failed to run is an <error>, one judged incorrect a <failure>.
std::string summary_junit(const json& n) {
  const std::string date = n["date"];
  JUnitSuite runs{"rope2d nightly " + date + ": verify", {}};
  for (const auto& v : n["verify"]) {
    JUnitCase c{"rope2d.nightly.verify", v["kernel"].get<std::string>() + " " + v["grad_dtype"].get<std::string>()};
    const std::string verdict = v["verdict"].get<std::string>();
    c.seconds = v["seconds"].get<double>();
    if (verdict == "skipped") c.outcome = Outcome::skipped, c.message = "no GPU: CPU checks only";
    else if (verdict == "incorrect") c.outcome = Outcome::failure, c.message = "verdict incorrect";
    else if (verdict != "passed") c.outcome = Outcome::error, c.message = fmt::format("verdict {} (verify exited {})", verdict, v["exit"].get<int>());
    if (c.outcome != Outcome::passed && c.outcome != Outcome::skipped)
      c.detail = "log: verify-" + v["kernel"].get<std::string>() + "-" + v["grad_dtype"].get<std::string>() + ".log";
    runs.cases.push_back(std::move(c));
  }
  JUnitSuite golden{"rope2d nightly " + date + ": golden set", {}};
  for (const auto& g : n["golden"]["results"]) {
    JUnitCase c{"rope2d.nightly.golden", g["problem"].get<std::string>()};
    if (g["disposition"] != "passed") c.outcome = Outcome::failure, c.message = g["disposition"].get<std::string>() + ": " + g["integrity"].get<std::string>();
    golden.cases.push_back(std::move(c));
  }
  if (golden.cases.empty())
    golden.cases.push_back({"rope2d.nightly.golden", "golden set", Outcome::skipped, n["golden"]["skipped"].get<std::string>()});
  const json& sw = n["sweep"];
  JUnitSuite sweep{"rope2d nightly " + date + ": angle sweep", {{"rope2d.nightly.sweep", "angle sweep"}}};
  JUnitCase& s = sweep.cases[0];
  bool timed_out = false;
  for (const auto& r : sw["ranges"]) timed_out = timed_out || (r["ran"] && !r["complete"]);
  if (!sw["ran"]) s.outcome = Outcome::skipped, s.message = sw["skipped"];
  else if (sw["over_float32_bound"].get<std::int64_t>() > 0)
    s.outcome = Outcome::failure, s.message = fmt::format("{} angles over float32-bound", sw["over_float32_bound"].get<std::int64_t>());
  else if (timed_out) s.outcome = Outcome::failure, s.message = "time box reached (summary.md says where)";
  JUnitSuite regressions{"rope2d nightly " + date + ": regressions", {}};
  for (const auto& r : n["regressions"]) regressions.cases.push_back({"rope2d.nightly.regression", r, Outcome::failure, r});
  if (regressions.cases.empty()) regressions.cases.push_back({"rope2d.nightly.regression", "against the previous run"});
  const JUnitSuite suites[] = {runs, golden, sweep, regressions};
  return render_junit(suites);
}

// The report of a merged night: compared with the newest earlier dated folder under root that
// has a summary, written under root/<date>/ with `extra` (the night's worst-case list): all
// rendered first, then written whole or not at all, summary.json last (it marks a whole report).
int finish(const std::string& root, json n, const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  const std::string date = n["date"];
  if (!valid_run_date(date)) throw std::invalid_argument("nightly: the date '" + date.substr(0, 40) + "' names no folder");
  const fs::path dir = fs::path(root) / date;
  fs::path previous;
  if (fs::is_directory(root))
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_directory() && e.path().filename().string() < date && valid_run_date(e.path().filename().string()) &&
          fs::exists(e.path() / "summary.json") && (previous.empty() || e.path().filename() > previous.filename()))
        previous = e.path();
  std::vector<std::string> regressions;
  if (!previous.empty()) {
    n["previous"] = previous.filename().string();
    regressions = nightly_regressions(n, read_previous_summary((previous / "summary.json").string()));
  }
  n["regressions"] = regressions;
  const bool ok = regressions.empty() && n["problems"].empty();
  n["status"] = ok ? (n["gpu"].get<bool>() ? "passed" : "skipped (no GPU)") : "FAILED";
  const std::string md = summary_markdown(n, dir);
  std::vector<std::pair<std::string, std::string>> files = extra;
  files.insert(files.end(), {{(dir / "summary.md").string(), md},
                             {(dir / "junit.xml").string(), summary_junit(n)},
                             {(dir / "summary.json").string(), n.dump(2) + "\n"}});
  for (const auto& f : files) fs::create_directories(fs::path(f.first).parent_path());
  write_files_atomic(files);
  std::cout << md << "\nreport: " << (dir / "summary.md").string() << "\n";
  return ok ? Exit::ok : Exit::incorrect;
}

// The night's worst-case list, joined from its shards' lists, where one process writes its
// own (sweep_one); none when the sweep did not run, or when a shard's range was the whole range
// (its list is the night's). Written by finish(), with the report.
std::vector<std::pair<std::string, std::string>> merged_worst(const std::string& root, const json& merged,
                                                              const std::vector<std::pair<std::string, json>>& shards) {
  const std::string text = merge_sweep_worst_lists(shards, SweepOptions{}.worst_per_pair);
  if (text.empty()) return {};
  const json& sw = merged["sweep"];
  const fs::path dir =
      fs::path(root) / merged["date"].get<std::string>() / sweep_folder(sw["lo"].get<std::uint64_t>(), sw["hi"].get<std::uint64_t>());
  for (const auto& [file, s] : shards)
    for (const json& r : s["sweep"]) {
      std::error_code ec;
      if (fs::equivalent(shard_sweep_list(file, r), dir / "sweep_worst.txt", ec)) return {};
    }
  return {{(dir / "sweep_worst.txt").string(), text}};
}

// --gpus: "all" (every GPU this process sees) or a comma-separated list of device ids.
std::vector<int> gpu_list(const std::string& spec, int present) {
  std::vector<int> ids;
  if (spec == "all") {
    for (int g = 0; g < present; ++g) ids.push_back(g);
    return ids;
  }
  std::set<int> seen;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty() || part.size() > 4 || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--gpus: expected all or device ids like 0,2, found '" + spec.substr(0, 40) + "'");
    const int g = std::stoi(part);
    if (present > 0 && g >= present)
      throw std::invalid_argument(fmt::format("--gpus: expected ids below {} (the GPUs present), found {}", present, g));
    if (!seen.insert(g).second) throw std::invalid_argument(fmt::format("--gpus: expected each id once, found {} twice", g));
    ids.push_back(g);
  }
  if (ids.empty()) throw std::invalid_argument("--gpus: expected all or device ids like 0,2, found nothing");
  return ids;
}

// One shard per GPU, as child processes of this program, each seeing its GPU only.
int run_gpus(const NightlyArgs& a, const json& plan, const std::string& date) {
#ifdef ROPE2D_HAVE_CUDA
  const int present = device_count();
#else
  const int present = 0;
#endif
  const std::vector<int> ids = gpu_list(a.gpus, present);
  if (ids.empty()) {
    std::cout << "rope2d nightly: --gpus all: no GPU found; running in one process (what needs no GPU)\n";
    return finish(a.root, merge_nightly_shards({{"(this run)", run_shard(a, plan, {0, 1}, date)}}));
  }
  if (present == 0) std::cout << "rope2d nightly: no GPU found; running the shards anyway (each checks what needs no GPU)\n";
  const int n = static_cast<int>(ids.size());
  const fs::path dir = fs::path(a.root) / date;
  fs::create_directories(dir);
  std::vector<SpawnResult> results(n);
  std::vector<std::thread> children;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const ShardId s{i, n};
    fs::remove(dir / shard_file(s));  // an earlier attempt's result must not stand in for this one's
    std::vector<std::string> argv{self_exe(), "nightly",      "--shard", fmt::format("{}/{}", i, n), "--out", a.root, "--date",
                                  date,       "--golden",     a.golden,  "--quiet"};
    if (!a.config.empty()) argv.insert(argv.end(), {"--config", a.config});
    if (a.quick) argv.push_back("--quick");
    const std::string log = (dir / fmt::format("shard-{}-of-{}.log", i, n)).string();
    children.emplace_back([&results, argv, log, i, g = ids[i]] { results[i] = run_logged(argv, log, {"CUDA_VISIBLE_DEVICES=" + std::to_string(g)}); });
  }
  for (auto& t : children) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<std::pair<std::string, json>> shards;
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    const fs::path f = dir / shard_file({i, n});
    if (results[i].code() != 0 || !fs::exists(f)) {
      std::cerr << fmt::format("rope2d nightly: shard {}/{} on GPU {} {} without a result; log: {}\n", i, n, ids[i],
                               results[i].exit_text(), (dir / fmt::format("shard-{}-of-{}.log", i, n)).string());
      ++failed;
      continue;
    }
    shards.emplace_back(f.string(), read_shard_result(f.string()));
  }
  if (failed) return Exit::incorrect;
  json merged = merge_nightly_shards(shards);
  const auto worst = merged_worst(a.root, merged, shards);
  merged["gpus"] = ids;
  merged["wall_seconds"] = wall;
  std::cout << fmt::format("rope2d nightly: {} shards on GPUs {} in {:.1f} s\n", n, json(ids).dump(), wall);
  return finish(a.root, merged, worst);
}

int run(const NightlyArgs& a) {
  const std::string date = run_date(a.date);
  if (!a.shard.empty() && !a.gpus.empty()) throw std::invalid_argument("--shard and --gpus: expected one of them, found both");
  const json plan = plan_of(a);
  if (!a.gpus.empty()) return run_gpus(a, plan, date);
  if (!a.shard.empty()) {
    const ShardId s = parse_shard(a.shard);
    const json result = run_shard(a, plan, s, date);
    const fs::path f = fs::path(a.root) / date / shard_file(s);
    write_file_atomic(f.string(), {result.dump(2), "\n"});
    std::cout << fmt::format("rope2d nightly: shard {}/{} ({} items) written to {}\n", s.index, s.count, result["items"].size(), f.string());
    return Exit::ok;
  }
  return finish(a.root, merge_nightly_shards({{"(this run)", run_shard(a, plan, {0, 1}, date)}}));
}

int run_merge(const MergeArgs& a) {
  std::vector<std::string> files = a.files;
  if (!a.date.empty()) run_date(a.date);  // a folder's name, before anything is read or written
  if (files.empty()) {
    const fs::path dir = fs::path(a.root) / run_date(a.date);
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (f.starts_with("shard-") && f.ends_with(".json")) files.push_back(e.path().string());
      }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw std::invalid_argument("nightly merge: expected shard-*-of-*.json in " + dir.string() + ", found none");
  }
  std::vector<std::pair<std::string, json>> shards;
  for (const std::string& f : files) shards.emplace_back(f, read_shard_result(f));
  json merged = merge_nightly_shards(shards);
  if (!a.date.empty() && merged["date"] != a.date)
    ref::bad_input(files[0], "date", "'" + a.date + "' (--date)", merged["date"].dump());
  const auto worst = merged_worst(a.root, merged, shards);
  if (!a.quiet) std::cerr << fmt::format("rope2d nightly merge: {} shards of {}\n", shards.size(), merged["date"].get<std::string>());
  return finish(a.root, merged, worst);
}

}  // namespace

Action add_nightly(CLI::App& app) {
  auto a = std::make_shared<NightlyArgs>();
  app.add_option("--config", a->config, "JSON: {submissions: [...], grad_dtypes: [...], sweep: {from, to, budget_s}}");
  app.add_option("--out", a->root, "where dated reports go")->capture_default_str();
  app.add_option("--root", a->root, "deprecated: --out")->group("")->each([](const std::string&) {
    std::cerr << "rope2d nightly: --root is deprecated; use --out\n";
  });
  app.add_option("--date", a->date, "name of this run's folder, YYYY-MM-DD (default: today, UTC)");
  app.add_option("--golden", a->golden, "golden set checked against the reference")->capture_default_str();
  app.add_option("--shard", a->shard, "do shard i of N (0 <= i < N) and write <out>/<date>/shard-i-of-N.json; merge makes the report");
  app.add_option("--gpus", a->gpus, "all, or device ids like 0,2: one shard per GPU in parallel, then the merge");
  app.add_flag("--quick", a->quick, "small shapes and a short sweep (for tests)");
  app.add_flag("--quiet", a->quiet, "no progress display");
  auto m = std::make_shared<MergeArgs>();
  CLI::App* merge = app.add_subcommand("merge", "combine shard results (rope2d nightly --shard i/N) into the night's report");
  merge->add_option("files", m->files, "shard results (default: every shard-*.json under <out>/<date>/)");
  merge->add_option("--out", m->root, "where dated reports go")->capture_default_str();
  merge->add_option("--date", m->date, "the night (default: today, UTC; the shards must be of this date)");
  merge->add_flag("--quiet", m->quiet, "no progress display");
  return [a, m, merge] { return merge->parsed() ? run_merge(*m) : run(*a); };
}

}  // namespace rope2d::cli
