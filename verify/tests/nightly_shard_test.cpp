// The nightly's shards: the rule that places work (complete, disjoint, stable), the sweep's
// range split, and the merge: the merge of N shards equals the merge of one, the shards'
// worst-case lists join into the list of one process, and every mismatched or incomplete set
// of shard results or lists is refused naming the file and field (or line).
#include <gtest/gtest.h>

#include <functional>
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "refusal.hpp"
#include "codec/input.hpp"
#include "products/nightly/nightly.hpp"
#include "products/nightly/nightly_shard.hpp"
#include "products/sweep/sweep_worst.hpp"

using namespace rope2d::verify;
using nlohmann::json;

namespace {

// The plan's sweep chunk is the GPU's (2^26 patterns); these tests' ranges are thousands of
// patterns, split at `chunk`: 1 for the made-up sweeps, the host sweep's chunk for real ones.
json plan_with(std::vector<std::string> submissions, float from = 1.0f, float to = 1.0001f, std::int64_t chunk = 1) {
  NightlyConfig c;
  c.submissions = std::move(submissions);
  c.sweep_from = from;
  c.sweep_to = to;
  json plan = nightly_plan(c, false, "data/golden-smoke", {"a_bf16_1x32.safetensors", "b_fp16_1x32.safetensors", "c_fp32_1x128.safetensors",
                                                           "d_bf16_2x64.safetensors", "e_fp32_1x64.safetensors"});
  EXPECT_EQ(plan["sweep"]["chunk"], sweep_chunk_patterns);
  plan["sweep"]["chunk"] = chunk;
  return plan;
}

std::string key(const json& item) {
  if (item["kind"] == "verify") return "verify " + item["kernel"].get<std::string>() + " " + item["grad_dtype"].get<std::string>();
  if (item["kind"] == "golden") return "golden " + item["file"].get<std::string>();
  if (item["kind"] == "premise") return "premise";
  return "sweep";
}

// A made-up error for each angle bit pattern and grad pair, with many ties; the largest (3)
// only in the upper half of the range for the first grad pair and only in the lower half for
// the others, so that the worst element depends on the order of grads and angles.
double error_of(std::uint64_t bits, int grad, std::uint64_t mid) {
  const double e = static_cast<double>((bits * 7919 + grad * 31) % 13) / 4;
  return e == 3 && (grad == 0) == (bits < mid) ? 2.75 : e;
}

// The sweep of [lo, hi) as one process goes through it: grad pairs in order, angles in order;
// the first largest error is the worst.
json sweep_result(const json& plan, std::uint64_t lo, std::uint64_t hi) {
  json worst;
  double max = 0;
  std::int64_t count = 0, exact = 0;
  const int grads = static_cast<int>(plan["sweep"]["grads"].size());
  const std::uint64_t mid = (plan["sweep"]["lo"].get<std::uint64_t>() + plan["sweep"]["hi"].get<std::uint64_t>()) / 2;
  for (int g = 0; g < grads; ++g)
    for (std::uint64_t b = lo; b < hi; ++b, ++count) {
      const double e = error_of(b, g, mid);
      exact += e == 0;
      if (worst.is_null() || e > max) {
        max = e;
        worst = {{"angle", std::bit_cast<float>(static_cast<std::uint32_t>(b))}, {"angle_bits", b}, {"grad", g},
                 {"gc", plan["sweep"]["grads"][g][0]}, {"gs", plan["sweep"]["grads"][g][1]}, {"ref", 0.5}, {"got", 0.5},
                 {"scaled_error", e}};
      }
    }
  return {{"lo", lo},          {"hi", hi},       {"ran", true},     {"skipped", ""},
          {"angles", count},   {"complete", true}, {"reached", std::bit_cast<float>(static_cast<std::uint32_t>(hi - 1))},
          {"seconds", 1.0},    {"count", count}, {"correctly_rounded", exact},
          {"max_scaled_error", max}, {"over_float32_bound", 0}, {"worst", worst}};
}

// A shard result as `rope2d nightly --shard` writes it, with results made up from the items.
json shard_result(const json& plan, ShardId s, const std::string& date = "2026-12-03") {
  const std::vector<json> items = nightly_items(plan, s);
  json verify = json::array(), golden = json::array(), sweep = json::array(), premise = json::array();
  for (const json& it : items) {
    if (it["kind"] == "verify") {
      const bool bad = it["kernel"] == "broken";
      verify.push_back({{"kernel", it["kernel"]}, {"grad_dtype", it["grad_dtype"]}, {"exit", bad ? 1 : 0}, {"seconds", 2.0},
                        {"report", true}, {"verdict", bad ? "incorrect" : "passed"},
                        {"sets", {{"randn/" + it["grad_dtype"].get<std::string>() + "/4x64",
                                   {{"disposition", bad ? "incorrect" : "passed"}, {"max", 1.5}, {"elements", 256}}},
                                  // A name longer than a short string's buffer (a dangling one shows).
                                  {"cancellation/" + it["grad_dtype"].get<std::string>() + "/1x8192",
                                   {{"disposition", "passed"}, {"max", 0.5}, {"elements", 8192}}}}}});
    }
    if (it["kind"] == "golden")
      golden.push_back({{"file", it["file"]}, {"problem", "p/" + it["file"].get<std::string>()}, {"disposition", "passed"},
                        {"integrity", "ok"}, {"elements", 32}, {"max", 0.0}, {"worst", "WORST " + it["file"].get<std::string>()}});
    if (it["kind"] == "sweep") sweep.push_back(sweep_result(plan, it["lo"], it["hi"]));
    if (it["kind"] == "premise") {
      NightPremise p;
      p.disposition = Disposition::passed;
      p.k_ulp = 2;
      p.file = "sincosf_ulp.json";
      p.device = "a GPU";
      for (const char* f : {"sinf", "cosf", "sincosf.sin", "sincosf.cos"}) p.functions.push_back({f, 1, 1.5, 1.5, "0x1p+0", 0});
      premise.push_back(to_json(p));
    }
  }
  return {{"schema", nightly_shard_schema}, {"commit", "v1-test"}, {"config_digest", plan_digest(plan)}, {"config", plan},
          {"date", date}, {"seed", nightly_seed(date)}, {"shard", {{"index", s.index}, {"count", s.count}}}, {"items", items},
          {"gpu", true}, {"verify", verify}, {"golden", {{"results", golden}}}, {"sweep", sweep}, {"premise", premise}};
}

std::vector<std::pair<std::string, json>> shards_of(const json& plan, int n) {
  std::vector<std::pair<std::string, json>> out;
  for (int i = 0; i < n; ++i) out.emplace_back("shard-" + std::to_string(i) + "-of-" + std::to_string(n) + ".json", shard_result(plan, {i, n}));
  return out;
}

namespace fs = std::filesystem;

// A night's shards whose sweeps ran on the host (glibc's float32 evaluation judged by the host
// twin: the sweep's machinery without a GPU), each writing its worst-case list where sweep_one
// puts it, beside its result under dir, and its result's counts from that sweep. In chunks of
// the plan's: every shard's range starts a chunk of the whole range's, so one process and the
// shards meet the same candidates.
std::vector<std::pair<std::string, json>> host_night(const json& plan, int n, const fs::path& dir) {
  std::vector<std::pair<std::string, json>> out;
  for (int i = 0; i < n; ++i) {
    json s = shard_result(plan, {i, n});
    for (json& r : s["sweep"]) {
      SweepOptions o;
      o.lo = r["lo"];
      o.hi = r["hi"];
      o.grads.clear();
      for (const auto& g : plan["sweep"]["grads"]) o.grads.push_back({g[2], g[0], g[1]});
      const SweepResult sw = run_sweep(o, host_sweep_chunk, plan["sweep"]["chunk"].get<std::int64_t>());
      const fs::path folder = dir / sweep_folder(o.lo, o.hi);
      fs::create_directories(folder);
      std::ofstream(folder / "sweep_worst.txt") << sweep_worst_list(sw, sweep_worst_header("rope2d nightly", sw, "host CPU"));
      r.update({{"angles", sw.angles}, {"complete", sw.complete}, {"seconds", sw.seconds}, {"count", sw.metrics.count},
                {"max_scaled_error", sw.metrics.max_scaled}, {"over_float32_bound", sw.metrics.over[static_cast<int>(Tier::float32_bound)]}});
    }
    out.emplace_back((dir / ("shard-" + std::to_string(i) + "-of-" + std::to_string(n) + ".json")).string(), s);
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string list_at(const fs::path& dir, const json& range) {
  return (dir / sweep_folder(range["lo"], range["hi"]) / "sweep_worst.txt").string();
}

// The merged summary as summary.json holds it.
json merged_json(const std::vector<std::pair<std::string, json>>& shards) { return to_json(merge_nightly_shards(shards)); }

// The merge's message for these shards ("" when it accepts them).
std::string refusal(const std::vector<std::pair<std::string, json>>& shards) {
  return refusal_of([&] { merge_nightly_shards(shards); });
}

}  // namespace

TEST(NightlyShard, ShardsAreIOfN) {
  EXPECT_EQ(parse_shard("0/1").count, 1);
  EXPECT_EQ(parse_shard("3/4").index, 3);
  for (const char* bad : {"4/4", "-1/2", "a/b", "1", "0/0", "1/5000", "", "1/2/3", " 1/2"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
  try {
    parse_shard("2/2");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--shard: expected i/N"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("found '2/2'"), std::string::npos);
  }
}

TEST(NightlyShard, SplitRangeTilesTheRange) {
  for (const auto& [lo, hi] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 1ull << 32}, {0x3f800000, 0x3f800007}, {5, 5}, {0, 3}})
    for (int n : {1, 2, 3, 7, 8}) {
      std::uint64_t at = lo, smallest = ~0ull, largest = 0;
      for (int i = 0; i < n; ++i) {
        const auto [a, b] = split_range(lo, hi, i, n);
        EXPECT_EQ(a, at);
        EXPECT_GE(b, a);
        smallest = std::min(smallest, b - a), largest = std::max(largest, b - a);
        at = b;
      }
      EXPECT_EQ(at, hi);
      EXPECT_LE(largest - smallest, 1u);
    }
  // Split at whole chunks from lo: every shard but the last a multiple of the chunk, shards
  // near-equal in chunks, and empty ones where the range holds fewer chunks than shards.
  for (const auto& [lo, hi, align] : std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>>{
           {0, 1ull << 32, 1ull << 26}, {7, 7 + 5 * 1024 + 3, 1024}, {0x3f800000, 0x3f800007, 4}, {5, 5, 8}, {0, 3, 1ull << 32}})
    for (int n : {1, 2, 3, 7, 8, 64, 65}) {
      std::uint64_t at = lo, smallest = ~0ull, largest = 0;
      const std::uint64_t units = (hi - lo + align - 1) / align;
      int empty = 0;
      for (int i = 0; i < n; ++i) {
        const auto [a, b] = split_range(lo, hi, i, n, align);
        EXPECT_EQ(a, at);
        EXPECT_GE(b, a);
        EXPECT_EQ((a - lo) % align, 0u) << a;
        if (b < hi) {
          EXPECT_EQ((b - a) % align, 0u);
        }
        const std::uint64_t chunks = (b - a + align - 1) / align;
        smallest = std::min(smallest, chunks), largest = std::max(largest, chunks);
        empty += a == b;
        at = b;
      }
      EXPECT_EQ(at, hi);
      EXPECT_LE(largest - smallest, 1u) << lo << " " << hi << " " << n;
      EXPECT_EQ(empty, units < static_cast<std::uint64_t>(n) ? n - static_cast<int>(units) : 0) << lo << " " << hi << " " << n;
    }
  EXPECT_THROW(split_range(0, 10, 0, 2, 0), std::invalid_argument);
}

TEST(NightlyShard, EveryItemOnExactlyOneShardAndAddingASubmissionMovesNothing) {
  const json before = plan_with({"kernels/a.cu", "kernels/b.so"}), after = plan_with({"kernels/a.cu", "kernels/b.so", "kernels/c.cu"});
  for (int n : {1, 2, 3, 5}) {
    std::map<std::string, int> where_before, where_after;
    for (int i = 0; i < n; ++i) {
      for (const json& it : nightly_items(before, {i, n})) EXPECT_TRUE(where_before.emplace(key(it), i).second || key(it) == "sweep");
      for (const json& it : nightly_items(after, {i, n})) EXPECT_TRUE(where_after.emplace(key(it), i).second || key(it) == "sweep");
    }
    EXPECT_EQ(where_before.size(), 3 * 3 + 5 + 1 + 1u);  // every kernel and dtype, every golden file, the premise, the sweep
    EXPECT_EQ(where_after.size(), 4 * 3 + 5 + 1 + 1u);
    EXPECT_EQ(where_before.at("premise"), 0) << "one measurement a night, by shard 0";
    for (const auto& [k, shard] : where_before) {
      if (k != "sweep") {
        EXPECT_EQ(where_after.at(k), shard) << k << " moved with " << n << " shards";
      }
    }
    if (n >= 3) {  // a kernel's three dtypes on three shards
      std::set<int> of_a;
      for (const char* d : {"bf16", "fp16", "fp32"}) of_a.insert(where_after.at(std::string("verify a ") + d));
      EXPECT_EQ(of_a.size(), 3u);
    }
  }
}

TEST(NightlyShard, MergedShardsEqualOneProcess) {
  const json plan = plan_with({"kernels/a.cu", "kernels/broken.cu"});
  const json one = merged_json(shards_of(plan, 1));
  for (int n : {2, 3, 4, 7}) {
    json merged = merged_json(shards_of(plan, n));
    EXPECT_EQ(merged["shards"], n);
    EXPECT_EQ(merged["verify"], one["verify"]) << n;
    EXPECT_EQ(merged["golden"], one["golden"]) << n;
    EXPECT_EQ(merged["problems"], one["problems"]) << n;
    EXPECT_EQ(merged["premise"], one["premise"]) << n;
    EXPECT_EQ(merged["sweep"]["worst"], one["sweep"]["worst"]) << n;
    for (const char* f : {"angles", "count", "max_scaled_error", "over_float32_bound", "correctly_rounded_fraction", "complete", "ran", "lo", "hi"})
      EXPECT_EQ(merged["sweep"][f], one["sweep"][f]) << n << " " << f;
    EXPECT_EQ(merged["sweep"]["ranges"].size(), static_cast<std::size_t>(n));
  }
  // The order one process runs them in: kernels as listed, dtypes as listed.
  ASSERT_EQ(one["verify"].size(), 9u);
  EXPECT_EQ(one["verify"][0]["kernel"], "rope2d");
  EXPECT_EQ(one["verify"][8]["kernel"], "broken");
  EXPECT_EQ(one["verify"][8]["grad_dtype"], "fp32");
  ASSERT_EQ(one["problems"].size(), 3u);
  EXPECT_EQ(one["problems"][0], "broken bf16: verdict incorrect");
  EXPECT_EQ(one["premise"]["disposition"], "passed");
  // The premise exceeded on shard 0 is the night's failure, measured against the premise, from
  // the figures the shard recorded whatever its disposition says.
  auto shards = shards_of(plan, 3);
  json& p = shards[0].second["premise"][0];
  p["functions"][1]["max_floats_from_correctly_rounded"] = 3;
  json failed = merged_json(shards);
  ASSERT_EQ(failed["problems"].size(), 4u);
  EXPECT_EQ(failed["problems"][3], "sincosf premise exceeded on a GPU: cosf measured 3 floats from the correctly rounded value, "
                                   "the premise allows k = 2");
  p["functions"][1]["max_floats_from_correctly_rounded"] = 2;
  p["disposition"] = "incorrect";
  failed = merged_json(shards);
  ASSERT_EQ(failed["problems"].size(), 4u);
  EXPECT_EQ(failed["problems"][3], "sincosf premise: incorrect, with no figure over the premise");
  // The worst sweep element is the first largest in grad-then-angle order (checked by a scan).
  const auto& sw = plan["sweep"];
  EXPECT_EQ(one["sweep"]["worst"], sweep_result(plan, sw["lo"], sw["hi"])["worst"]);
  EXPECT_EQ(one["sweep"]["worst"]["grad"], 0);
  EXPECT_EQ(one["sweep"]["worst"]["scaled_error"], 3.0);
}

TEST(NightlyShard, MergeRefusesShardsThatDoNotBelongTogether) {
  const json plan = plan_with({"kernels/a.cu"});
  auto expect_refused = [](const std::vector<std::pair<std::string, json>>& shards, const std::string& file, const std::string& field,
                           const std::string& found) {
    const std::string msg = refusal(shards);
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find(field), std::string::npos) << msg;
    EXPECT_NE(msg.find(found), std::string::npos) << msg;
  };
  ASSERT_EQ(refusal(shards_of(plan, 3)), "");
  auto s = shards_of(plan, 3);
  s[2].second["commit"] = "v2-other";
  expect_refused(s, "shard-2-of-3.json", "commit", "v2-other");
  s = shards_of(plan, 3);
  s[1].second["date"] = "2026-12-04";
  expect_refused(s, "shard-1-of-3.json", "date", "2026-12-04");
  // Another config: its digest differs from the first shard's.
  s = shards_of(plan, 3);
  s[1].second = shard_result(plan_with({"kernels/a.cu", "kernels/z.cu"}), {1, 3});
  expect_refused(s, "shard-1-of-3.json", "config_digest", plan_digest(plan_with({"kernels/a.cu", "kernels/z.cu"})));
  // A config edited without its digest.
  s = shards_of(plan, 3);
  s[0].second["config"]["grad_dtypes"] = {"bf16"};
  expect_refused(s, "shard-0-of-3.json", "config_digest", "the digest of its config");
  // A plan whose sweep chunk is no whole number of patterns, or none (its digest made anew).
  for (const json& chunk : {json(0), json(1.5), json("64"), json(std::uint64_t{1} << 33)}) {
    s = shards_of(plan, 3);
    for (auto& [f, sh] : s) {
      sh["config"]["sweep"]["chunk"] = chunk;
      sh["config_digest"] = plan_digest(sh["config"]);
    }
    expect_refused(s, "shard-0-of-3.json", "config", chunk == json(std::uint64_t{1} << 33) ? "alignment" : "sweep.chunk");
  }
  // Different counts, a duplicate, a missing shard.
  s = shards_of(plan, 3);
  s[2] = {"shard-2-of-4.json", shard_result(plan, {2, 4})};
  expect_refused(s, "shard-2-of-4.json", "shard.count", "4");
  s = shards_of(plan, 3);
  s[2] = {"copy-of-shard-1.json", s[1].second};
  expect_refused(s, "copy-of-shard-1.json", "shard.index", "shard 1/3 already in shard-1-of-3.json");
  s = shards_of(plan, 3);
  s.erase(s.begin() + 1);
  expect_refused(s, "shard-0-of-3.json", "shard.index", "shard 1/3 missing");
  // Work that is not the shard's share, or results that do not answer its items.
  s = shards_of(plan, 3);
  s[0].second["items"].erase(0);
  expect_refused(s, "shard-0-of-3.json", "items", "share of its config");
  s = shards_of(plan, 3);
  for (auto& [f, r] : s)
    if (!r["verify"].empty()) {
      r["verify"].erase(0);
      expect_refused(s, f, "verify", "one result per verify item");
      break;
    }
  s = shards_of(plan, 3);
  s[0].second["sweep"] = json::array();
  expect_refused(s, "shard-0-of-3.json", "sweep", "one result per sweep item");
  s = shards_of(plan, 3);
  for (auto& [f, r] : s)
    if (!r["verify"].empty()) {
      r["verify"][0]["verdict"] = 3;
      expect_refused(s, f, "verify[0].verdict", "expected a string, found the number 3");
      break;
    }
  s = shards_of(plan, 3);
  s[0].second["golden"]["results"] = {1, 2};
  expect_refused(s, "shard-0-of-3.json", "golden.results[0]", "expected an object, found the number 1");
  // Not a shard result at all.
  s = shards_of(plan, 3);
  s[1].second = json::parse(R"({"date": "2026-12-03", "verify": []})");
  expect_refused(s, "shard-1-of-3.json", "schema", "rope2d.nightly-shard/1");
  s[1].second = shard_result(plan, {1, 3});
  s[1].second["shard"] = {{"index", 3}, {"count", 3}};
  expect_refused(s, "shard-1-of-3.json", "shard", "0 <= i < N");
  EXPECT_NE(refusal({}).find("found none"), std::string::npos);
}

TEST(NightlyShard, MergeReadsEveryFieldTypedBeforeUse) {
  // Each key the merge reads, removed in turn: refused naming the file and the key, never
  // read through operator[] on a const object (undefined behaviour: a crash before).
  const json plan = plan_with({"kernels/a.cu"});
  const json good = shard_result(plan, {0, 1});
  std::vector<std::string> paths;
  const std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& at) {
    if (v.is_object())
      for (const auto& [k, x] : v.items()) {
        if (at == "/items" || at.starts_with("/items/")) continue;  // compared whole with the plan's
        std::string key;  // as a JSON pointer spells it
        for (char c : k) key += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
        paths.push_back(at + "/" + key);
        walk(x, at + "/" + key);
      }
    if (v.is_array() && !v.empty() && at != "/config/sweep/grads/0") walk(v[0], at + "/0");
  };
  walk(good, "");
  ASSERT_GT(paths.size(), 40u);
  int refused = 0;
  for (const std::string& p : paths) {
    json s = good;
    const json::json_pointer ptr(p);
    s[ptr.parent_pointer()].erase(ptr.back());
    const std::string msg = refusal({{"shard-0-of-1.json", s}});
    if (msg.empty()) continue;  // an optional key (seed, gpu, a result's extras)
    ++refused;
    EXPECT_NE(msg.find("shard-0-of-1.json"), std::string::npos) << p << ": " << msg;
  }
  EXPECT_GT(refused, 30) << "most keys are required";
  // Wrong types and out-of-range counts, named.
  auto refused_with = [&](const std::string& ptr, const json& value, const std::string& says) {
    json s = good;
    s[json::json_pointer(ptr)] = value;
    const std::string msg = refusal({{"shard-0-of-1.json", s}});
    EXPECT_NE(msg.find(says), std::string::npos) << ptr << ": " << msg;
  };
  refused_with("/config/sweep/from", "0", "config.sweep.from: expected a number, found the string \"0\"");
  refused_with("/shard/count", 300000000, "shard.count: expected an integer in [1, 4096], found the number 300000000");
  refused_with("/shard/index", -1, "shard.index: expected an integer in [0, 4095]");
  refused_with("/date", "../escaped", "date: expected YYYY-MM-DD");
  refused_with("/date", "/tmp/x", "date: expected YYYY-MM-DD");
  refused_with("/sweep/0/worst", "x", "sweep[0].worst: expected an object");
  ASSERT_FALSE(good["verify"].empty());
  json s = good;
  s["verify"][0]["sets"].begin().value()["max"] = "big";
  const std::string msg = refusal({{"shard-0-of-1.json", s}});
  EXPECT_NE(msg.find(".max: expected a number or null, found the string \"big\""), std::string::npos) << msg;
}

TEST(NightlyShard, RegressionsCompareTheSameKernelAndDtype) {
  const json plan = plan_with({"kernels/a.cu"});
  json now = merged_json(shards_of(plan, 2)), before = merged_json(shards_of(plan, 1));
  EXPECT_TRUE(nightly_regressions(night_summary_from_json(now), night_summary_from_json(before)).empty());
  now["verify"][1]["seconds"] = 30.0;  // rope2d fp16, slower
  now["golden"]["results"][0]["disposition"] = "incorrect";
  const auto r = nightly_regressions(night_summary_from_json(now), night_summary_from_json(before));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NE(r[0].find("rope2d: verify took 30.0 s, was 2.0 s"), std::string::npos) << r[0];
  EXPECT_NE(r[1].find("golden p/a_bf16_1x32.safetensors: newly incorrect"), std::string::npos) << r[1];
  // A summary from before the split into dtypes: sets compare, times do not.
  json old = before;
  old["verify"] = json::array({{{"kernel", "rope2d"}, {"seconds", 1.0}, {"sets", json::object()}}});
  for (const json& v : before["verify"])
    if (v["kernel"] == "rope2d") old["verify"][0]["sets"].update(v["sets"]);
  EXPECT_TRUE(nightly_regressions(merge_nightly_shards(shards_of(plan, 2)), night_summary_from_json(old)).empty());
  json worse = merged_json(shards_of(plan, 2));
  worse["verify"][2]["sets"]["randn/fp32/4x64"]["disposition"] = "incorrect";
  const auto r2 = nightly_regressions(night_summary_from_json(worse), night_summary_from_json(old));
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_NE(r2[0].find("rope2d randn/fp32/4x64: newly incorrect"), std::string::npos) << r2[0];
}

TEST(NightlyShard, MergedWorstListEqualsOneProcess) {
  // 2^16 + 300 patterns from 4096: angles of many periods, where the largest errors are spread
  // over the range; in chunks of 2^10, so three shards split at whole chunks, not at thirds.
  const json plan = plan_with({}, 4096.0f, std::bit_cast<float>(0x4581012cu), 1 << 10);
  const fs::path dir = fs::temp_directory_path() / ("rope2d_nightly_worst_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::size_t keep = SweepOptions{}.worst_per_pair;
  const auto single = host_night(plan, 1, dir / "one");
  const std::vector<std::string> one = lines_of(rope2d::verify::read_file(list_at(dir / "one", plan["sweep"])));
  ASSERT_GT(one.size(), 5 + 6u);
  for (int n : {1, 2, 3, 4}) {
    const auto shards = n == 1 ? single : host_night(plan, n, dir / std::to_string(n));
    const std::vector<std::string> merged = lines_of(merge_sweep_worst_lists(shards, keep));
    // Line for line the list of one process, but for two header lines: "made by" names the
    // shards and the merge, and the device line has the longest shard's time, not one process's.
    ASSERT_EQ(merged.size(), one.size()) << n;
    EXPECT_EQ(merged[0], "# made by: rope2d nightly --shard i/" + std::to_string(n) + " for i = 0.." + std::to_string(n - 1) +
                             ", joined by rope2d nightly merge");
    EXPECT_TRUE(merged[4].starts_with("# device: host CPU; ")) << merged[4];
    for (std::size_t k = 1; k < one.size(); ++k) {
      if (k != 4) {
        EXPECT_EQ(merged[k], one[k]) << n << " shards, line " << k + 1;
      }
    }
    // Not vacuous: the shards' lists hold more cases than the merged one (each pair cut at
    // `keep`), and some pair's merged cases come from more than one shard.
    std::size_t shard_cases = 0, merged_cases = 0;
    std::map<std::string, std::set<int>> shards_of_pair;  // "gc gs" -> the shards of its merged cases
    for (const std::string& l : merged) merged_cases += !l.starts_with("#");
    for (int i = 0; i < n; ++i) {
      const fs::path night = fs::path(shards[i].first).parent_path();
      for (const std::string& l : lines_of(rope2d::verify::read_file(list_at(night, shards[i].second["sweep"][0])))) {
        if (l.starts_with("#")) continue;
        ++shard_cases;
        if (std::find(merged.begin(), merged.end(), l) != merged.end()) shards_of_pair[l.substr(0, l.find(' ', l.find(' ') + 1))].insert(i);
      }
    }
    if (n > 1) {
      EXPECT_GT(shard_cases, merged_cases) << n;
      std::size_t widest = 0;
      for (const auto& [pair, from] : shards_of_pair) widest = std::max(widest, from.size());
      EXPECT_EQ(widest, static_cast<std::size_t>(n)) << n;
    }
  }
  fs::remove_all(dir);
}

TEST(NightlyShard, MergeRefusesAMissingOrMalformedWorstList) {
  const json plan = plan_with({}, 1.0f, std::bit_cast<float>(0x3f804000u), 1 << 10);  // 2^14 patterns from 1
  const fs::path dir = fs::temp_directory_path() / ("rope2d_nightly_badworst_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto shards = host_night(plan, 2, dir);
  const std::string list = list_at(dir, shards[1].second["sweep"][0]), other = list_at(dir, shards[0].second["sweep"][0]);
  const std::string good = rope2d::verify::read_file(list);
  ASSERT_EQ(refusal(shards), "");
  ASSERT_NE(merge_sweep_worst_lists(shards, 16), "");
  auto refused = [&](const std::string& text, const std::string& where, const std::string& what, std::size_t keep = 16,
                     const std::string& named = "") {
    std::ofstream(list) << text;
    try {
      merge_sweep_worst_lists(shards, keep);
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find((named.empty() ? list : named) + where), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  // The line of the first case, and the list with one line replaced.
  const std::vector<std::string> lines = lines_of(good);
  std::size_t first = 0;
  while (lines[first].starts_with("#")) ++first;
  auto with = [&](std::size_t k, const std::string& line) {
    std::string t;
    for (std::size_t i = 0; i < lines.size(); ++i) t += (i == k ? line : lines[i]) + "\n";
    return t;
  };
  const std::string at = ":" + std::to_string(first + 1) + ": ";
  refused(with(first, "0x1.8p-1 -0x1.4p+0 1.5 # 1"), at, "expected a C99 hex float, found '1.5'");
  refused(with(first, lines[first].substr(0, lines[first].find(" #"))), at, "expected '# E' after the case");
  refused(with(first, lines[first + 1]), ":" + std::to_string(first + 2) + ": ", "expected cases largest error first");
  refused(with(first, "0x1p+0 0x1p+0" + lines[first].substr(lines[first].find(' ', lines[first].find(' ') + 1))), at,
          "expected the grads of pair 'ordinary', gc=0x1.8p-1 gs=-0x1.4p+0, found gc=0x1p+0 gs=0x1p+0");
  refused(with(first - 1, "# equal (gc=0x1p+0, gs=0x1p+0): 1 angles, max error 0 x 2^-24 S, 0 over float32-bound"),
          ":" + std::to_string(first) + ": ", "(grad pair 1 of 6)");
  // A pair line of 10^5 digits (the regex is not reached: no stack overflow).
  refused(with(first - 1, "# ordinary (gc=0x1.8p-1, gs=-0x1.4p+0): " + std::string(100000, '1') +
                              " angles, max error 0 x 2^-24 S, 0 over float32-bound"),
          ":" + std::to_string(first) + ": ", "(grad pair 1 of 6)");
  // The first case's angle again as the pair's last case, with the smallest error (in order).
  std::size_t last = first;
  while (!lines[last + 1].starts_with("#")) ++last;
  ASSERT_GT(last, first);
  refused(with(last, lines[first].substr(0, lines[first].find(" #")) + " # 0"), ":" + std::to_string(last + 1) + ": ",
          "expected each angle once for grad pair 'ordinary'");
  refused(with(2, "# of every chunk"), ":3: ", "expected '# rounded result");
  refused(good, ":" + std::to_string(first + 5) + ": ", "expected at most 4 cases for grad pair 'ordinary'", 4, other);  // read first
  // A well-formed list that is not this shard's: another range's, or other counts than its result's.
  refused(rope2d::verify::read_file(other), at, "expected an angle of bit patterns [0x3f802000, 0x3f804000)");
  std::string more = good;
  more.replace(more.find(": 8192 angles"), 13, ": 8193 angles");
  refused(more, ": ", "expected 49152 angles over its grad pairs, as " + shards[1].first + "'s sweep of bit patterns [0x3f802000");
  refused(good.substr(0, good.find("\n", good.find("\n") + 1) + 1), ":2: ", "expected 11 '#' lines");
  fs::remove(list);
  try {
    merge_sweep_worst_lists(shards, 16);
    ADD_FAILURE() << "accepted a missing list";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(list + ": expected the worst-case list of the sweep of bit patterns [0x3f802000, 0x3f804000)"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("that " + shards[1].first + " ran, found no such file"), std::string::npos) << e.what();
  }
  // A range that did not run (no GPU) has no list and asks for none: no merged list either.
  auto skipped = shards;
  skipped[1].second["sweep"][0]["ran"] = false;
  EXPECT_EQ(merge_sweep_worst_lists(skipped, 16), "");
  fs::remove_all(dir);
}
