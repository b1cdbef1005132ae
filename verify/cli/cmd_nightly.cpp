// rope2d nightly [--config FILE] [--out DIR] [--shard i/N | --gpus all|0,2,...]: the nightly
// correctness run on a GPU machine.
//   1. rope2d verify on the project's kernel and on every submission in the config, one process
//      per kernel and grad dtype, fresh seeds each night (the date);
//   2. the committed golden set against the reference, problem by problem (no GPU needed);
//   3. the premise of the float32 bound measured on the GPU: sincosf_ulp over every float32
//      input, compared with float32_bound.hpp's (or --sincosf-measurement FILE compared instead);
//   4. a sweep of every float32 angle in [from, to) with fixed grads against the certified
//      reference (default [0, 2^14): about 1.2 billion angles), time-boxed;
//   5. a dated report under reports/nightly/<date>/ compared with the previous one: new
//      failures, worse max errors or slower runs are called out at the top; then the
//      dashboard over every night, reports/nightly/index.html.
// --shard i/N does shard i's share of that (nightly_shard.hpp) and writes shard-i-of-N.json;
// `rope2d nightly merge` makes the report of the shards; --gpus runs one shard per GPU as child
// processes and merges them. One process without either is the merge of one shard.
// Exit 0 when all passed and nothing regressed, 1 otherwise, 2 on bad input; a shard exits 0
// once its result is written (the merge judges it).
// The options and wiring only: the work is the library's (nightly_run.hpp: a shard;
// nightly_gpus.hpp: the GPU pool; nightly_report.hpp: the report), the GPU's part passed in
// from here (NightlyGpu).
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "progress.hpp"
#include "codec/input.hpp"
#include "products/nightly/nightly.hpp"
#include "products/nightly/nightly_gpus.hpp"
#include "products/nightly/nightly_input.hpp"
#include "products/nightly/nightly_report.hpp"
#include "products/nightly/nightly_run.hpp"
#include "products/nightly/nightly_site.hpp"
#include "codec/atomic_file.hpp"
#include "codec/plain_text.hpp"
#include "codec/validate.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
#endif

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;
namespace fs = std::filesystem;
using nlohmann::json;

struct NightlyArgs {
  NightlyOptions night;
  std::string date, shard, gpus;
  bool golden_given = false;  // --golden named: a set that is not there is bad input, not a skip
};

struct MergeArgs {
  std::string root = "reports/nightly", date;
  std::vector<std::string> files;
  bool quiet = false;
};

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

// --out and the night's folder under it: directories or nothing (never a symbolic link), checked
// before any work; the files written there are checked as they are written.
void check_night_folder(const std::string& root, const std::string& date) {
  if (root.empty()) throw std::invalid_argument("--out: expected a folder, found an empty name");
  // A relative root lies in the current folder, whose contents may be anyone's (a checkout's
  // `reports` linked elsewhere): no link on the way to it.
  require_local_output_folder(root, "--out");
  require_output_folder(root, "--out");
  if (!date.empty()) require_output_folder((fs::path(root) / date).string(), "--out");
}

// The GPU work of this build: none without CUDA.
NightlyGpu this_gpu() {
  NightlyGpu g;
#ifdef ROPE2D_HAVE_CUDA
  g.probe = probe_device;
  g.count = device_count;
  g.sweep = [](const SweepOptions& o, const SweepProgress& p) { return sweep_angles(&rope2d_backward, o, p); };
#endif
  return g;
}

// The report of a merged night, shown on stdout.
int finish(const std::string& root, const NightSummary& n, const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  const NightReport r = write_nightly_report(root, n, extra);
  std::cout << r.markdown << "\nreport: " << r.path << "\n";
  // The dashboard over every night under root, this one included; a page that cannot be
  // written is said, never a failure of the night.
  try {
    std::cout << "dashboard: " << write_nightly_site(root) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "rope2d nightly: dashboard not written: " << e.what() << "\n";
  }
  return r.ok ? Exit::ok : Exit::incorrect;
}

json run_shard(const NightlyArgs& a, const json& plan, ShardId s, const std::string& date) {
  Progress progress(a.night.quiet);
  const json result = run_nightly_shard(a.night, plan, s, date, this_gpu(),
                                        [&](std::size_t i, std::size_t n, const std::string& what) { progress.step(i, n, what); });
  progress.done();
  return result;
}

int run(const NightlyArgs& a) {
  const std::string date = run_date(a.date);
  if (!a.shard.empty() && !a.gpus.empty()) throw std::invalid_argument("--shard and --gpus: expected one of them, found both");
  check_night_folder(a.night.root, date);
  // The default set may be absent (an install without data): skipped, and said; so is
  // --golden none, asked for. A named one that is not there is a typo a night must not pass over.
  if (a.golden_given && a.night.golden != "none" && !fs::is_regular_file(fs::path(a.night.golden) / "manifest.json"))
    throw std::invalid_argument("--golden: expected a golden set (a folder with manifest.json), found nothing at '" +
                                plain_line(a.night.golden) + "'");
  const json plan = nightly_plan_of(a.night);
  if (!a.gpus.empty()) {
    const NightlyGpu gpu = this_gpu();
    const int present = gpu.count ? gpu.count() : 0;
    const std::vector<int> ids = gpu_list(a.gpus, present);
    if (!ids.empty()) {
      if (present == 0) std::cout << "rope2d nightly: no GPU found; running the shards anyway (each checks what needs no GPU)\n";
      return run_nightly_on_gpus(a.night, date, ids) ? Exit::ok : Exit::incorrect;
    }
    std::cout << "rope2d nightly: --gpus all: no GPU found; running in one process (what needs no GPU)\n";
  } else if (!a.shard.empty()) {
    const ShardId s = parse_shard(a.shard);
    const fs::path f = fs::path(a.night.root) / date / shard_file(s);
    require_output_file(f.string(), "--out");
    const json result = run_shard(a, plan, s, date);
    write_file_atomic(f.string(), {result.dump(2), "\n"});
    std::cout << fmt::format("rope2d nightly: shard {}/{} ({} items) written to {}\n", s.index, s.count, result["items"].size(), f.string());
    return Exit::ok;
  }
  return finish(a.night.root, merge_nightly_shards({{"(this run)", run_shard(a, plan, {0, 1}, date)}}));
}

int run_merge(const MergeArgs& a) {
  std::vector<std::string> files = a.files;
  if (!a.date.empty()) run_date(a.date);  // a folder's name, before anything is read or written
  check_night_folder(a.root, a.date);
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
  const NightSummary merged = merge_nightly_shards(shards);
  if (!a.date.empty() && merged.date != a.date) verify::bad_input(files[0], "date", "'" + a.date + "' (--date)", json(merged.date).dump());
  const auto worst = nightly_merged_worst(a.root, merged, shards);
  if (!a.quiet) std::cerr << fmt::format("rope2d nightly merge: {} shards of {}\n", shards.size(), merged.date);
  return finish(a.root, merged, worst);
}

}  // namespace

Action add_nightly(CLI::App& app) {
  auto a = std::make_shared<NightlyArgs>();
  a->night.program = fs::read_symlink("/proc/self/exe").string();
  a->night.golden = repo_file("data/golden-smoke");  // beside the program, never the working directory's
  app.add_option("--config", a->night.config, "JSON: {submissions: [...], grad_dtypes: [...], sweep: {from, to, budget_s}}");
  app.add_option("--out", a->night.root, "where dated reports go")->capture_default_str();
  app.add_option("--root", a->night.root, "deprecated: --out")->group("")->each([](const std::string&) {
    std::cerr << "rope2d nightly: --root is deprecated; use --out\n";
  });
  app.add_option("--date", a->date, "name of this run's folder, YYYY-MM-DD (default: today, UTC)");
  CLI::Option* golden =
      app.add_option("--golden", a->night.golden, "golden set checked against the reference (none: no golden check)")->capture_default_str();
  app.add_option("--sincosf-measurement", a->night.sincosf_measurement,
                 "compare this measurement (sincosf_ulp --json FILE) with the premise instead of running sincosf_ulp on the GPU");
  app.add_option("--shard", a->shard, "do shard i of N (0 <= i < N) and write <out>/<date>/shard-i-of-N.json; merge makes the report");
  app.add_option("--gpus", a->gpus, "all, or device ids like 0,2: one shard per GPU in parallel, then the merge");
  app.add_flag("--quick", a->night.quick, "small shapes and a short sweep (for tests)");
  app.add_flag("--quiet", a->night.quiet, "no progress display");
  auto m = std::make_shared<MergeArgs>();
  CLI::App* merge = app.add_subcommand("merge", "combine shard results (rope2d nightly --shard i/N) into the night's report");
  merge->add_option("files", m->files, "shard results (default: every shard-*.json under <out>/<date>/)");
  merge->add_option("--out", m->root, "where dated reports go")->capture_default_str();
  merge->add_option("--date", m->date, "the night (default: today, UTC; the shards must be of this date)");
  merge->add_flag("--quiet", m->quiet, "no progress display");
  return [a, m, merge, golden] {
    a->golden_given = golden->count() > 0;
    return merge->parsed() ? run_merge(*m) : run(*a);
  };
}

}  // namespace rope2d::cli
