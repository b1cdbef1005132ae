// The nightly's plan, its shards and their merge (nightly_shard.hpp).
#include "products/nightly/nightly_shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "rope2d/ref/dtype.hpp"
#include "codec/input.hpp"
#include "products/nightly/nightly_input.hpp"
#include "products/nightly/nightly_premise.hpp"
#include "products/sweep/sweep_worst.hpp"

namespace rope2d::verify {

using nlohmann::json;

ShardId parse_shard(const std::string& text, const std::string& option) {
  const std::size_t slash = text.find('/');
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(s);
  };
  const int i = slash == std::string::npos ? -1 : number(text.substr(0, slash));
  const int n = slash == std::string::npos ? -1 : number(text.substr(slash + 1));
  if (i < 0 || n < 1 || n > 4096 || i >= n)
    throw std::invalid_argument(option + ": expected i/N with 0 <= i < N <= 4096 (shard i of N, counted from 0), found '" +
                                text.substr(0, 40) + "'");
  return {i, n};
}

std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

json nightly_plan(const NightlyConfig& c, bool quick, const std::string& golden_dir, const std::vector<std::string>& golden_files,
                  const std::string& sincosf_measurement) {
  // The range in bit patterns (all 2^32 with "angles": "all"); --quick sweeps a sample of it.
  const std::uint64_t lo = c.sweep_lo(), hi = c.sweep_hi();
  json grads = json::array();
  for (const SweepGrads& g : default_sweep_grads()) grads.push_back({g.gc, g.gs, g.name});
  json dtypes = json::array();  // by name: the shards read them back, and each is a child's --grad-dtypes
  for (ref::Dtype d : c.grad_dtypes) dtypes.push_back(std::string(ref::name(d)));
  return {{"submissions", c.submissions},
          {"grad_dtypes", dtypes},
          {"golden", {{"dir", golden_dir}, {"files", golden_files}}},
          {"premise", {{"measurement", sincosf_measurement}}},
          {"sweep", {{"from", c.sweep_from}, {"to", c.sweep_to}, {"lo", lo}, {"hi", std::max(lo, hi)}, {"grads", grads},
                     {"chunk", sweep_chunk_patterns}, {"budget_s", c.sweep_budget_s}}},
          {"quick", quick}};
}

std::vector<json> nightly_items(const json& plan, ShardId s) {
  std::vector<json> items;
  std::vector<std::string> kernels{""};
  for (const auto& k : plan.at("submissions")) kernels.push_back(k.get<std::string>());
  for (const std::string& k : kernels)
    for (const auto& d : plan.at("grad_dtypes")) {
      const auto dtype = ref::parse_dtype(d.get<std::string>());
      const int position = dtype ? static_cast<int>(*dtype) : 0;
      if ((fnv1a64(kernel_name(k)) + position) % s.count == static_cast<std::uint64_t>(s.index))
        items.push_back({{"kind", "verify"}, {"kernel", kernel_name(k)}, {"path", k}, {"grad_dtype", d}});
    }
  for (const auto& f : plan.at("golden").at("files"))
    if (fnv1a64(f.get<std::string>()) % s.count == static_cast<std::uint64_t>(s.index)) items.push_back({{"kind", "golden"}, {"file", f}});
  // One measurement of the premise a night, by shard 0 (none in plans of builds before it).
  if (plan.contains("premise") && s.index == 0) items.push_back({{"kind", "premise"}});
  const json& sw = plan.at("sweep");
  // Split at whole chunks of the sweep, so the shards' worst-case lists join into the one
  // of the whole range.
  const json& chunk = sw.at("chunk");
  if (!chunk.is_number_integer() || chunk < 1) throw std::invalid_argument("sweep.chunk: expected a whole number of bit patterns, found " + brief(chunk));
  const auto [lo, hi] = split_range(sw.at("lo").get<std::uint64_t>(), sw.at("hi").get<std::uint64_t>(), s.index, s.count,
                                    chunk.get<std::uint64_t>());
  if (hi > lo) items.push_back({{"kind", "sweep"}, {"lo", lo}, {"hi", hi}});
  return items;
}

std::vector<SweepGrads> plan_sweep_grads(const json& plan) {
  std::vector<SweepGrads> grads;
  for (const auto& g : plan.at("sweep").at("grads")) grads.push_back({g.at(2).get<std::string>(), g.at(0).get<double>(), g.at(1).get<double>()});
  return grads;
}

std::string plan_digest(const json& plan) { return fmt::format("{:016x}", fnv1a64(plan.dump())); }

namespace {

// The keys by which a shard's results answer its items.
json keys_of(const std::vector<json>& items, const std::string& kind) {
  json out = json::array();
  for (const json& it : items) {
    if (it["kind"] != kind) continue;
    if (kind == "verify") out.push_back({it["kernel"], it["grad_dtype"]});
    if (kind == "golden") out.push_back(it["file"]);
    if (kind == "sweep") out.push_back({it["lo"], it["hi"]});
    if (kind == "premise") out.push_back("premise");
  }
  return out;
}

json keys_of_results(const json& results, const std::string& kind) {
  json out = json::array();
  for (const json& r : results) {
    if (!r.is_object()) {
      out.push_back(nullptr);
      continue;
    }
    if (kind == "verify") out.push_back({r.value("kernel", json()), r.value("grad_dtype", json())});
    if (kind == "golden") out.push_back(r.value("file", json()));
    if (kind == "sweep") out.push_back({r.value("lo", json()), r.value("hi", json())});
    if (kind == "premise") out.push_back("premise");
  }
  return out;
}

// The merged sweep: ranges in order, sums of counts, the largest error and its element (ties
// go to the first grad pair, then the lowest angle, as in one process going through them in order).
NightSweep merge_sweep(const json& plan, std::vector<NightSweepRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const NightSweepRange& a, const NightSweepRange& b) { return a.lo < b.lo; });
  const json& p = plan["sweep"];
  NightSweep m;
  m.from = p["from"].get<double>();
  m.to = p["to"].get<double>();
  m.lo = p["lo"].get<std::uint64_t>();
  m.hi = p["hi"].get<std::uint64_t>();
  m.grads = plan_sweep_grads(plan);
  bool ran = !ranges.empty(), complete = ran;
  std::string skipped = ranges.empty() ? "an empty range" : "";
  std::int64_t cr = 0;
  auto key = [](const NightSweepWorst& e) { return std::make_tuple(-e.scaled_error, e.grad, e.angle_bits); };
  for (const NightSweepRange& r : ranges) {
    ran = ran && r.ran;
    if (skipped.empty() && !r.skipped.empty()) skipped = r.skipped;
    complete = complete && r.complete;
    m.angles += r.angles;
    m.count += r.count;
    cr += r.correctly_rounded;
    m.over_float32_bound += r.over_float32_bound;
    m.seconds = std::max(m.seconds, r.seconds);
    m.max_scaled_error = std::max(m.max_scaled_error, r.max_scaled_error);
    if (m.reached == 0 || complete) m.reached = r.reached;
    if (r.worst && (!m.worst || key(*r.worst) < key(*m.worst))) m.worst = r.worst;
  }
  m.ran = ran;
  m.skipped = ran ? std::string() : skipped;
  m.complete = complete;
  m.correctly_rounded_fraction = m.count ? double(cr) / double(m.count) : 0.0;
  m.ranges = std::move(ranges);
  return m;
}

std::vector<std::string> problems_of(const NightSummary& summary) {
  std::vector<std::string> out;
  for (const NightVerify& v : summary.verify) {
    const std::string name = v.kernel + " " + dtype_label(v);
    if (v.report && v.verdict != Disposition::passed)  // failed: its exit too (3 did not build or run, 2 a verifier error)
      out.push_back(name + ": verdict " + std::string(verify::name(v.verdict)) +
                    (v.verdict == Disposition::failed ? " (verify exited " + std::to_string(v.exit) + ")" : ""));
    if (!v.report && v.exit != 0) out.push_back(name + ": verify exited " + std::to_string(v.exit));
  }
  for (const NightGolden& g : summary.golden.results)
    if (g.disposition != Disposition::passed)
      out.push_back("golden " + g.problem + ": " + std::string(name(g.disposition)) + " (" + g.integrity + ")");
  const NightSweep& sw = summary.sweep;
  if (sw.ran && sw.over_float32_bound > 0)
    out.push_back(fmt::format("sweep: {} elements over the float32-bound tier", sw.over_float32_bound));
  for (const NightSweepRange& r : sw.ranges)
    if (r.ran && !r.complete)
      out.push_back(fmt::format("sweep: time box reached at angle {} (bit patterns [{:#x}, {:#x}); resume with --range {:#x}:{:#x})",
                                r.reached, r.lo, r.hi, r.next.value_or(r.lo), r.hi));
  // The premise's failures from its figures, whatever its disposition says.
  if (const auto& p = summary.premise) {
    std::size_t over = 0;
    for (const NightPremiseFigures& f : p->functions)
      for (const std::string& e : night_premise_excesses(f, p->k_ulp)) {
        out.push_back("sincosf premise exceeded on " + p->device + ": " + e);
        ++over;
      }
    if (p->disposition == Disposition::failed) out.push_back("sincosf premise not measured: " + p->reason);
    if (p->disposition == Disposition::incorrect && over == 0) out.push_back("sincosf premise: incorrect, with no figure over the premise");
  }
  return out;
}

// A shard's results, typed: what the merge reads of them.
struct ShardResults {
  std::vector<NightVerify> verify;
  std::vector<NightGolden> golden;
  std::vector<NightSweepRange> sweep;
  std::vector<NightPremise> premise;
};

ShardResults typed_results(const json& results) {
  ShardResults out;
  for (std::size_t k = 0; k < results["verify"].size(); ++k)
    out.verify.push_back(night_verify_from_json(results["verify"][k], fmt::format("verify[{}]", k)));
  for (std::size_t k = 0; k < results["golden"].size(); ++k)
    out.golden.push_back(night_golden_from_json(results["golden"][k], fmt::format("golden.results[{}]", k)));
  for (const json& r : results["sweep"]) out.sweep.push_back(night_sweep_range_from_json(r));
  for (const json& p : results["premise"]) out.premise.push_back(night_premise_from_json(p));
  return out;
}

// The results of shard id (s, read from file), typed: its items must be its share of its plan
// and its results answer them one by one, in order, each read as the merge reads it (types and
// dispositions included); else bad input naming the file and the field.
ShardResults shard_results(const std::string& file, const json& s, ShardId id) {
  std::vector<json> items;
  try {
    items = nightly_items(s["config"], id);
  } catch (const std::exception& e) {  // a missing or mistyped field, or one out of its range (sweep.lo, hi, chunk)
    bad_input(file, "config", "the plan of the night", std::string("a malformed plan: ") + e.what());
  }
  const json want_items = items;
  if (s.value("items", json()) != want_items)
    bad_input(file, "items", fmt::format("shard {}/{}'s share of its config ({} items)", id.index, id.count, items.size()),
              brief(s.value("items", json())));
  const json results = {{"verify", s.value("verify", json())}, {"golden", s.value("golden", json()).value("results", json())},
                        {"sweep", s.value("sweep", json())}, {"premise", s.value("premise", json::array())}};
  for (const std::string kind : {"verify", "golden", "sweep", "premise"}) {
    const std::string field = kind == "golden" ? "golden.results" : kind;
    if (!results[kind].is_array() || keys_of_results(results[kind], kind) != keys_of(items, kind))
      bad_input(file, field, fmt::format("one result per {} item of the shard, in order ({})", kind, keys_of(items, kind).dump()),
                brief(results[kind]));
  }
  // Each result read as the merge reads it (types and dispositions included).
  ShardResults typed;
  try {
    typed = typed_results(results);
    merge_sweep(s["config"], typed.sweep);
  } catch (const std::exception& e) {  // nlohmann::json::exception, or a disposition that names none
    bad_input(file, "verify, golden, sweep or premise", "results as rope2d nightly --shard writes them", e.what());
  }
  return typed;
}

}  // namespace

NightSummary merge_nightly_shards(const std::vector<std::pair<std::string, json>>& shards) {
  if (shards.empty()) throw std::invalid_argument("nightly merge: expected shard results, found none");
  const std::string& first_file = shards[0].first;
  const json& first = shards[0].second;
  std::map<int, std::string> seen;
  std::vector<NightVerify> verify;
  std::vector<NightGolden> golden;
  std::vector<NightSweepRange> ranges;
  std::vector<NightPremise> premise;
  bool gpu = true;
  int count = 0;
  for (const auto& [file, s] : shards) {
    // Every field read below, typed and in range, before any is read; the date, a folder's name.
    check_shard_result(s, file);
    if (s.value("schema", json()) != nightly_shard_schema)
      bad_input(file, "schema", std::string("\"") + nightly_shard_schema + "\"", brief(s.value("schema", json())));
    const json sh = s.value("shard", json());
    if (!sh.is_object() || !sh.value("index", json()).is_number_integer() || !sh.value("count", json()).is_number_integer() ||
        sh["count"].get<int>() < 1 || sh["index"].get<int>() < 0 || sh["index"].get<int>() >= sh["count"].get<int>())
      bad_input(file, "shard", "{\"index\": i, \"count\": N} with 0 <= i < N", brief(sh));
    for (const char* field : {"commit", "config_digest", "date"}) {
      if (!s.value(field, json()).is_string()) bad_input(file, field, "a string", brief(s.value(field, json())));
      if (s[field] != first[field])
        bad_input(file, field, brief(first[field]) + " (as in " + first_file + ")", brief(s[field]));
    }
    if (sh["count"] != first["shard"]["count"])
      bad_input(file, "shard.count", brief(first["shard"]["count"]) + " (as in " + first_file + ")", brief(sh["count"]));
    if (!s.value("config", json()).is_object()) bad_input(file, "config", "the plan of the night (an object)", brief(s.value("config", json())));
    if (plan_digest(s["config"]) != s["config_digest"])
      bad_input(file, "config_digest", plan_digest(s["config"]) + " (the digest of its config)", brief(s["config_digest"]));
    const ShardId id{sh["index"].get<int>(), sh["count"].get<int>()};
    count = id.count;
    if (const auto it = seen.find(id.index); it != seen.end())
      bad_input(file, "shard.index", fmt::format("each shard once, shard {}/{} already in {}", id.index, id.count, it->second),
                brief(sh["index"]) + " again");
    seen[id.index] = file;
    const ShardResults typed = shard_results(file, s, id);
    verify.insert(verify.end(), typed.verify.begin(), typed.verify.end());
    golden.insert(golden.end(), typed.golden.begin(), typed.golden.end());
    ranges.insert(ranges.end(), typed.sweep.begin(), typed.sweep.end());
    premise.insert(premise.end(), typed.premise.begin(), typed.premise.end());
    gpu = gpu && s.value("gpu", false);
  }
  std::string missing;
  for (int i = 0; i < count; ++i)
    if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + fmt::format("{}/{}", i, count);
  if (!missing.empty())
    bad_input(first_file + " and the other shard results", "shard.index",
              fmt::format("all {} shards of the night", count), "shard " + missing + " missing");
  // Plan order: the order one process runs them in.
  const json& plan = first["config"];
  std::vector<std::string> kernel_order{"rope2d"};
  for (const auto& k : plan["submissions"]) kernel_order.push_back(kernel_name(k));
  auto verify_rank = [&](const NightVerify& v) {
    const auto k = std::find(kernel_order.begin(), kernel_order.end(), v.kernel) - kernel_order.begin();
    const json& dt = plan["grad_dtypes"];
    const auto d = std::find(dt.begin(), dt.end(), json(dtype_label(v))) - dt.begin();
    return std::make_pair(k, d);
  };
  std::stable_sort(verify.begin(), verify.end(), [&](const NightVerify& a, const NightVerify& b) { return verify_rank(a) < verify_rank(b); });
  const json& files = plan["golden"]["files"];
  auto golden_rank = [&](const NightGolden& x) { return std::find(files.begin(), files.end(), json(x.file)) - files.begin(); };
  std::stable_sort(golden.begin(), golden.end(), [&](const NightGolden& a, const NightGolden& b) { return golden_rank(a) < golden_rank(b); });
  NightSummary summary;
  summary.date = first["date"];
  if (first.contains("seed") && !first["seed"].is_null()) summary.seed = first["seed"].get<std::uint64_t>();
  summary.commit = first["commit"];
  summary.config_digest = first["config_digest"];
  summary.shards = count;
  summary.gpu = gpu;
  summary.verify = std::move(verify);
  summary.golden.dir = plan["golden"]["dir"];
  summary.golden.skipped = files.empty() ? "golden set " + summary.golden.dir + " not found" : "";
  summary.golden.results = std::move(golden);
  summary.sweep = merge_sweep(plan, std::move(ranges));
  if (!premise.empty()) summary.premise = premise[0];  // shard 0's: one a night
  summary.problems = problems_of(summary);
  return summary;
}

std::string sweep_folder(std::uint64_t lo, std::uint64_t hi) { return fmt::format("sweep-{:#x}-{:#x}", lo, hi); }

std::string shard_sweep_list(const std::string& shard_file, const json& range) {
  return (std::filesystem::path(shard_file).parent_path() /
          sweep_folder(range.at("lo").get<std::uint64_t>(), range.at("hi").get<std::uint64_t>()) / "sweep_worst.txt")
      .string();
}

std::string merge_sweep_worst_lists(const std::vector<std::pair<std::string, json>>& shards, std::size_t keep) {
  namespace fs = std::filesystem;
  const json& plan = shards.at(0).second["config"];
  std::vector<SweepGrads> grads;
  try {
    grads = plan_sweep_grads(plan);
  } catch (const json::exception&) {
    bad_input(shards[0].first, "config.sweep.grads", "[gc, gs, name] of each grad pair", brief(plan.value("sweep", json()).value("grads", json())));
  }
  for (const auto& [file, s] : shards)
    for (const json& r : s["sweep"])
      if (!r.value("ran", false)) return "";
  std::vector<SweepWorstList> parts;
  for (const auto& [file, s] : shards)
    for (const json& r : s["sweep"]) {
      const std::uint64_t lo = r["lo"].get<std::uint64_t>(), hi = r["hi"].get<std::uint64_t>();
      const std::string path = shard_sweep_list(file, r);
      const std::string range = sweep_range_words(lo, hi);
      if (!fs::exists(path)) bad_input(path, "", "the worst-case list of the sweep of " + range + " that " + file + " ran", "no such file");
      SweepWorstList l = read_sweep_worst(path, lo, hi, grads, keep);
      // The list and the shard's result tell of one sweep. (The lambda captures `says`, not the
      // structured binding `file`: clang before 16 cannot capture one.)
      const std::string says = fmt::format("as {}'s sweep of {} says", file, range);
      auto agree = [&](const char* what, std::int64_t in_list, std::int64_t in_shard) {
        if (in_list != in_shard)
          bad_input(path, "", fmt::format("{} {} over its grad pairs, {}", in_shard, what, says), std::to_string(in_list));
      };
      agree("angles", l.sweep.angles, r.value("angles", std::int64_t{0}));
      agree("elements over float32-bound", l.sweep.metrics.over[static_cast<int>(Tier::float32_bound)],
            r.value("over_float32_bound", std::int64_t{0}));
      if (l.sweep.complete != r.value("complete", false))
        bad_input(path, "", fmt::format("{} grad pairs, {}", r["complete"] == true ? "complete" : "incomplete", says),
                  l.sweep.complete ? "complete ones" : "one marked (incomplete)");
      parts.push_back(std::move(l));
    }
  if (parts.empty()) return "";  // an empty range: nothing swept
  std::sort(parts.begin(), parts.end(), [](const SweepWorstList& a, const SweepWorstList& b) { return a.sweep.lo < b.sweep.lo; });
  std::vector<SweepResult> sweeps;
  std::set<std::string> seen;
  std::string devices;
  for (const SweepWorstList& l : parts) {
    sweeps.push_back(l.sweep);
    if (seen.insert(l.device).second) devices += (devices.empty() ? "" : ", ") + l.device;
  }
  const SweepResult joined = join_sweeps(sweeps, keep);
  const int n = shards.at(0).second["shard"]["count"].get<int>();
  const std::string made_by = fmt::format("rope2d nightly --shard i/{} for i = 0..{}, joined by rope2d nightly merge", n, n - 1);
  return sweep_worst_list(joined, sweep_worst_header(made_by, joined, devices));
}

}  // namespace rope2d::verify
