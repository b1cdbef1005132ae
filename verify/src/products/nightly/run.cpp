// A shard's work in this process (nightly_run.hpp): 1. rope2d verify per kernel and grad
// dtype, each in its own process; 2. the shard's golden problems against the reference; 3. on
// shard 0, the sincosf premise measured (sincosf_ulp, in its own process) or a given
// measurement compared; 4. its range of the angle sweep, time-boxed. Its result is what
// merge_nightly_shards reads.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "rope2d/ref/sincosf_premise.hpp"
#include "codec/sincosf_measurement.hpp"
#include "codec/atomic_file.hpp"
#include "rope2d/verify/judge/check.hpp"
#include "rope2d/verify/codec/golden.hpp"
#include "products/nightly/nightly.hpp"
#include "products/nightly/nightly_premise.hpp"
#include "products/nightly/nightly_run.hpp"
#include "products/nightly/nightly_summary.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "harness/spawn.hpp"
#include "products/sweep/sweep_report.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A verify item's report folder in the night's folder.
fs::path verify_folder(const fs::path& dir, const json& item) {
  return dir / ("verify-" + item["kernel"].get<std::string>() + "-" + item["grad_dtype"].get<std::string>());
}

// The report folders of the verify items, checked as verify checks its --out before anything
// runs: something in the way (a link, a FIFO) is bad input named here (exit 2), not a verify
// child's exit 2 reported as the kernel's failure.
void check_verify_folders(const fs::path& dir, const std::vector<json>& items) {
  for (const json& it : items) {
    if (it["kind"] != "verify") continue;
    const fs::path out = verify_folder(dir, it);
    check_report_folder(out.string(), "the night's report folder");
    for (const char* filled : {"build", "solution"}) require_output_tree((out / filled).string(), "the night's report folder");
  }
}

// The folders every submission's box hides besides its own run's: the nightly's root (every
// night's reports: the other submissions' logs, reports, built objects and sources) and the
// folder of every submission of the plan. A submission verified later in the night sees none of
// those verified before it.
std::vector<std::string> night_hides(const fs::path& root, const json& plan) {
  std::error_code ec;
  std::vector<std::string> hide{fs::absolute(root, ec).string()};
  for (const auto& k : plan.at("submissions"))
    hide.push_back(fs::absolute(k.get<std::string>(), ec).parent_path().string());
  return hide;
}

// 1. One verifier run, in its own process (an argument vector: no shell reads the paths).
NightVerify verify_one(const std::string& program, const json& item, const fs::path& dir, std::uint64_t seed, bool quick,
                       const std::vector<std::string>& hide) {
  NightVerify v;
  v.kernel = item["kernel"].get<std::string>();
  v.grad_dtype = night_dtype(item["grad_dtype"], "grad_dtype");
  const std::string dtype = dtype_label(v), name = v.kernel + "-" + dtype;
  const std::string out = verify_folder(dir, item).string(), path = item["path"];
  std::vector<std::string> argv{program, "verify", "--out", out, "--grad-dtypes", dtype, "--seed", std::to_string(seed), "--quiet",
                                "--tier", std::string(verify::name(Tier::float32_bound))};
  if (quick) argv.push_back("--quick");
  for (const std::string& h : hide) argv.insert(argv.end(), {"--hide", h});
  // Last, after "--": a path that starts with a dash is a path, never an option.
  if (!path.empty()) argv.insert(argv.end(), {"--", path});
  const auto t0 = std::chrono::steady_clock::now();
  const std::string log = (dir / ("verify-" + name + ".log")).string();
  require_output_file(log);  // the child's output is opened there for writing, never through a link or into a FIFO
  v.exit = run_logged(argv, log).code();
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const fs::path report = fs::path(out) / "report.json";
  if (fs::exists(report)) {
    try {
      const Report rep = read_report_json(report.string());
      v.report = true;
      v.verdict = rep.verdict();
      for (const SetResult& r : rep.results) v.sets[r.name] = {r.disposition(rep.gate), r.metrics.max_scaled, r.metrics.count};
    } catch (const std::invalid_argument&) {  // a report cut short: as none
      v.report = false;
      v.sets.clear();
    }
  }
  // A report of nothing judged (no GPU: every set skipped) counts as none: the exit code says
  // what the CPU checks found, and no set is compared with the night before.
  if (v.report && v.verdict == Disposition::skipped) v.report = false, v.sets.clear();
  // No report: no GPU (verify checked the CPU side only; exit 0), or it failed before one.
  if (!v.report) v.verdict = v.exit == 0 ? Disposition::skipped : v.exit == 1 ? Disposition::incorrect : Disposition::failed;
  return v;
}

// 2. The golden problems of the shard against the reference.
std::vector<NightGolden> golden_part(const json& plan, const std::vector<json>& items) {
  std::set<std::string> mine;
  for (const json& it : items)
    if (it["kind"] == "golden") mine.insert(it["file"].get<std::string>());
  if (mine.empty()) return {};
  GoldenSet set = open_golden(plan["golden"]["dir"]);
  std::erase_if(set.files, [&](const GoldenFile& f) { return !mine.count(f.file); });
  const Report r = check_golden_against_reference(set);
  std::vector<NightGolden> out;
  for (std::size_t k = 0; k < r.results.size(); ++k) {
    const SetResult& s = r.results[k];
    out.push_back({set.files[k].file, s.name, s.disposition(Tier::float32_bound), s.integrity, s.metrics.count, s.metrics.max_scaled,
                   s.metrics.worst ? std::optional<std::string>(s.metrics.worst->line(s.name, "WORST")) : std::nullopt});
  }
  return out;
}

// 3. The shard's range of the exhaustive angle sweep.
// Its worst-case list (CORE-MATH form) goes to sweep-<lo>-<hi>/ under the night's folder; it
// keeps SweepOptions' worst_per_pair cases per grad pair, as the merge of the lists does.
NightSweepRange sweep_one(const json& plan, const json& item, const DeviceInfo& dev, const NightlyGpu& gpu, const fs::path& dir,
                          const NightlyStep& step) {
  SweepResult sw;
  SweepOptions o;
  o.lo = item["lo"].get<std::uint64_t>();
  o.hi = item["hi"].get<std::uint64_t>();
  o.budget_s = plan["sweep"]["budget_s"];
  o.quick = plan.value("quick", false);  // a sample of the range
  o.grads = plan_sweep_grads(plan);
  if (dev.available && gpu.sweep) {
    sw = gpu.sweep(o, [&](std::int64_t done, std::int64_t total, const std::string& what) {
      step(static_cast<std::size_t>(done * 100 / std::max<std::int64_t>(1, total)), 100, what);
    });
    write_sweep_files((dir / sweep_folder(o.lo, o.hi)).string(), sw, "rope2d nightly", dev.name);
  }
  if (!sw.ran) sw.skipped = dev.reason.empty() ? "no GPU" : dev.reason;
  return night_sweep_range(sw, o.lo, o.hi, o.grads);
}

}  // namespace

json nightly_plan_of(const NightlyOptions& o) {
  const NightlyConfig c = read_nightly_config(o.config);
  std::vector<std::string> files;
  if (!o.golden.empty() && fs::exists(fs::path(o.golden) / "manifest.json"))
    for (const GoldenFile& f : open_golden(o.golden).files) files.push_back(f.file);
  if (!o.sincosf_measurement.empty()) read_sincosf_measurement(o.sincosf_measurement);  // bad input: exit 2
  return nightly_plan(c, o.quick, o.golden, files, o.sincosf_measurement);
}

std::string shard_file(ShardId s) { return fmt::format("shard-{}-of-{}.json", s.index, s.count); }

json run_nightly_shard(const NightlyOptions& o, const json& plan, ShardId s, const std::string& date, const NightlyGpu& gpu,
                       const NightlyStep& step) {
  const fs::path dir = make_night_folder(o.root, date);
  const std::uint64_t seed = nightly_seed(date);
  const std::vector<json> items = nightly_items(plan, s);
  check_verify_folders(dir, items);
  json verify = json::array(), golden = json::array(), sweep = json::array(), premise = json::array();
  const std::vector<std::string> hide = night_hides(o.root, plan);
  for (std::size_t k = 0; k < items.size(); ++k)
    if (items[k]["kind"] == "verify") {
      step(k, items.size(), "verify " + items[k]["kernel"].get<std::string>() + " " + items[k]["grad_dtype"].get<std::string>());
      verify.push_back(to_json(verify_one(o.program, items[k], dir, seed, o.quick, hide)));
    }
  step(0, 1, "golden set against the reference");
  for (const NightGolden& g : golden_part(plan, items)) golden.push_back(to_json(g));
  // The GPU, looked for after the verifier children ran (they each hold it in turn).
  const DeviceInfo dev = gpu.probe ? gpu.probe() : DeviceInfo{false, "built without CUDA"};
  // The premise before the sweep: what the sweep and the verifier runs are judged under.
  for (const json& it : items)
    if (it["kind"] == "premise") {
      step(0, 1, "sincosf premise");
      premise.push_back(to_json(night_premise(plan, dev, dir.string())));
    }
  for (const json& it : items)
    if (it["kind"] == "sweep") sweep.push_back(to_json(sweep_one(plan, it, dev, gpu, dir, step)));
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return {{"schema", nightly_shard_schema},
          {"commit", generator_version()},
          {"config_digest", plan_digest(plan)},
          {"config", plan},
          {"date", date},
          {"seed", seed},
          {"shard", {{"index", s.index}, {"count", s.count}}},
          {"items", items},
          {"cuda_visible_devices", visible ? json(visible) : json()},
          {"gpu", dev.available},
          {"verify", verify},
          {"golden", {{"results", golden}}},
          {"sweep", sweep},
          {"premise", premise}};
}

}  // namespace rope2d::verify
