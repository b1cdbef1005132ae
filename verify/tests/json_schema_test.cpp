// The one reader (json_schema.hpp): the embedded schemas are verify/schema/'s files, their
// enums and sizes are the verifier's own names and arrays, the project's own writers pass, and
// a refusal names file, field, expected and found, the first problem in the schema's order.
// schema_cli_test.sh runs the same files through `rope2d schema` and the commands that read them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "rope2d/ref/dtype.hpp"
#include "codec/bench_torch.hpp"
#include "codec/input.hpp"
#include "rope2d/verify/model/disposition.hpp"
#include "codec/json_schema.hpp"
#include "codec/layout_json.hpp"
#include "rope2d/verify/codec/safetensors.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "products/nightly/nightly_summary.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "rope2d/verify/model/status.hpp"

namespace {

using namespace rope2d;
using namespace rope2d::verify;
using nlohmann::json;
namespace fs = std::filesystem;

const fs::path schema_dir = fs::path(ROPE2D_TEST_DIR) / ".." / "schema";

json schema(JsonFormat f) { return json::parse(schema_text(f)); }

std::string refusal(const json& doc, JsonFormat f, std::string_view part = {}) {
  try {
    check_json(doc, f, "f.json", part);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(JsonSchema, EmbeddedSchemasAreTheFilesOfVerifySchema) {
  std::set<std::string> named;
  for (JsonFormat f : all_json_formats) {
    named.insert(schema_file(f));
    EXPECT_EQ(schema_text(f), verify::read_file((schema_dir / schema_file(f)).string())) << schema_file(f);
    EXPECT_EQ(parse_json_format(name(f)), f);
    EXPECT_EQ(schema(f).value("$schema", ""), "http://json-schema.org/draft-07/schema#") << schema_file(f);
  }
  for (const auto& e : fs::directory_iterator(schema_dir))
    EXPECT_TRUE(named.count(e.path().filename().string())) << e.path() << " is the schema of no format";
  EXPECT_FALSE(parse_json_format("reports"));
}

TEST(JsonSchema, EnumsAndSizesAreTheVerifiers) {
  const json report = schema(JsonFormat::report);
  std::vector<std::string> dispositions, causes, dtypes;
  for (Disposition d : all_dispositions) dispositions.emplace_back(name(d));
  for (Cause c : all_causes) causes.emplace_back(name(c));
  for (ref::Dtype d : ref::all_dtypes) dtypes.emplace_back(ref::name(d));
  EXPECT_EQ(report["definitions"]["disposition"]["enum"].get<std::vector<std::string>>(), dispositions);
  EXPECT_EQ(report["definitions"]["cause"]["enum"].get<std::vector<std::string>>(), causes);
  EXPECT_EQ(schema(JsonFormat::nightly_config)["properties"]["grad_dtypes"]["items"]["enum"].get<std::vector<std::string>>(), dtypes);
  dtypes.emplace_back();  // a result's grad dtype may be none ("")
  EXPECT_EQ(report["definitions"]["result"]["properties"]["grad_dtype"]["enum"].get<std::vector<std::string>>(), dtypes);
  // A safetensors header's dtypes: those whose element size the reader knows, the grads' among them.
  const auto st_dtypes = schema(JsonFormat::safetensors_header)["definitions"]["tensor"]["properties"]["dtype"]["enum"]
                             .get<std::vector<std::string>>();
  for (const std::string& d : st_dtypes) EXPECT_GT(dtype_size(d), 0) << d;
  for (ref::Dtype d : ref::all_dtypes)
    EXPECT_NE(std::find(st_dtypes.begin(), st_dtypes.end(), std::string(ref::safetensors_name(d))), st_dtypes.end()) << ref::name(d);
  const json& result = report["definitions"]["result"]["properties"];
  const Metrics m;
  EXPECT_EQ(result["histogram"]["minItems"], m.histogram.size());
  EXPECT_EQ(result["max_by_angle"]["minItems"], m.max_by_angle.size());
  EXPECT_EQ(result["subnormal_modes"]["minItems"], m.subnormal_modes.size());
}

TEST(JsonSchema, WhatTheProjectWritesPasses) {
  Report r;
  r.title = "rope2d";
  SetResult ok{"randn/bf16/1x64", "randn", ref::Dtype::bf16};
  ok.integrity = "ok";
  ok.metrics.count = 64;
  ok.metrics.correctly_rounded = 64;
  SetResult failed{"randn/fp16/1x64", "randn", ref::Dtype::fp16};
  failed.error = "the call failed";
  r.results = {ok, failed};
  EXPECT_EQ(refusal(json::parse(render_json(r)), JsonFormat::report), "accepted");
  NightSummary night;
  night.date = "2026-12-03";
  EXPECT_EQ(refusal(to_json(night), JsonFormat::nightly_summary), "accepted");
  const std::string definition = std::string(ROPE2D_TEST_DIR) + "/../../data/golden-smoke/solexecbench/definition.json";
  const json d = read_json_file(definition, JsonFormat::definition);
  EXPECT_EQ(refusal(d, JsonFormat::definition, "rope2d_backward"), "accepted");
  EXPECT_NO_THROW(read_json_file(std::string(ROPE2D_TEST_DIR) + "/../../data/golden-smoke/manifest.json", JsonFormat::golden_manifest));
}

TEST(JsonSchema, RefusalsNameFileFieldExpectedAndFound) {
  json c = {{"grad_dtypes", {"bf16"}}, {"sweep", {{"from", 0}, {"to", 1}}}};
  EXPECT_EQ(refusal(c, JsonFormat::nightly_config), "accepted");
  c["sweep"]["to"] = "1";
  EXPECT_EQ(refusal(c, JsonFormat::nightly_config), "f.json: sweep.to: expected a number in [0, 3.4e+38], found the string \"1\"");
  c["sweep"]["to"] = 1;
  c["sweep"]["budget"] = 5;
  EXPECT_EQ(refusal(c, JsonFormat::nightly_config), "f.json: sweep.budget: expected only from, to, angles and budget_s, found this field");
  EXPECT_EQ(refusal(json::array(), JsonFormat::nightly_config), "f.json: (top): expected an object (a nightly config), found an array of 0");
  json m = {{"schema", "rope2d.golden/1"}, {"files", json::array()}};
  EXPECT_EQ(refusal(m, JsonFormat::golden_manifest),
            "f.json: files: expected a non-empty array (a set holds at least one problem), found an array of 0");
  m.erase("files");
  EXPECT_EQ(refusal(m, JsonFormat::golden_manifest),
            "f.json: files: expected a non-empty array (a set holds at least one problem), found nothing");
  // A seed above INT64_MAX (a uint64) is an integer >= 0, not a wrapped negative one.
  m = {{"schema", "rope2d.golden/1"}, {"seeds", {std::uint64_t{18307846571559558674ull}}},
       {"files", {{{"file", "a.safetensors"}, {"problem", "p"}, {"elements", 1}, {"sha256", std::string(64, 'a')}}}}};
  EXPECT_EQ(refusal(m, JsonFormat::golden_manifest), "accepted");
  m["files"][0]["elements"] = std::uint64_t{18307846571559558674ull};
  EXPECT_EQ(refusal(m, JsonFormat::golden_manifest),
            "f.json: files[0].elements: expected an integer in [1, 1099511627776], found the number 18307846571559558674");
}

TEST(JsonSchema, TheFirstProblemInTheSchemasOrder) {
  // Not a shard at all: said by its "schema" field, the first the schema lists.
  EXPECT_EQ(refusal(json{{"date", "2026-12-03"}, {"verify", json::array()}}, JsonFormat::nightly_shard),
            "f.json: schema: expected \"rope2d.nightly-shard/1\", found nothing");
  EXPECT_EQ(refusal(json{{"date", 3}, {"commit", 4}}, JsonFormat::nightly_shard),
            "f.json: schema: expected \"rope2d.nightly-shard/1\", found nothing");
  // Every problem of a small document, in the schema's order.
  const json shard_name = {{"schema", "rope2d.nightly-shard/1"}};
  std::vector<SchemaProblem> p = schema_problems(shard_name, JsonFormat::nightly_shard);
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[0].line("f.json"), "f.json: commit: expected a string of at most 200 characters, found nothing");
  EXPECT_EQ(p[2].field, "date");
  EXPECT_EQ(p[2].expected, "YYYY-MM-DD (a folder's name under --out)");
  // A million bad entries: one pass to the first, not a million error records.
  json doc = {{"schema", "rope2d.golden/1"}, {"files", json::array()}};
  for (int i = 0; i < 1000000; ++i) doc["files"].push_back(i);
  EXPECT_EQ(refusal(doc, JsonFormat::golden_manifest), "f.json: files[0]: expected an object, found the number 0");
  // A large shard: the first field the schema lists that fails ("shard" before "config", which
  // sorts first), descended into, its problems alone.
  doc = shard_name;
  doc["items"] = json::array();
  for (int i = 0; i < 30000; ++i) doc["items"].push_back(json::object());
  doc["shard"] = {{"index", 0}, {"count", 0}};
  doc["config"] = {{"quick", 1}};
  p = schema_problems(doc, JsonFormat::nightly_shard);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line("f.json"), "f.json: shard.count: expected an integer in [1, 4096], found the number 0");
  // A definition of the solution's own problem: its part of the schema, inputs before axes.
  const json def = {{"name", "090"}, {"inputs", {{"grad_cos", {{"dtype", "int8"}}}}}};
  EXPECT_EQ(refusal(def, JsonFormat::definition), "accepted");
  EXPECT_EQ(refusal(def, JsonFormat::definition, "rope2d_backward"),
            "f.json: inputs.grad_cos.dtype: expected \"bfloat16\", \"float16\" or \"float32\", found the string \"int8\"");
}

TEST(JsonSchema, MagnitudesOrInfinityAndElements) {
  Report r;
  r.title = "t";
  SetResult x{"randn/bf16/1x64", "randn", ref::Dtype::bf16};
  x.integrity = "ok";
  x.metrics.count = 1;
  x.metrics.correctly_rounded = 1;
  r.results = {x};
  json j = json::parse(render_json(r));
  j["results"][0]["max_scaled_error"] = "inf";
  EXPECT_EQ(refusal(j, JsonFormat::report), "accepted");
  j["results"][0]["max_scaled_error"] = "infinite";
  EXPECT_EQ(refusal(j, JsonFormat::report),
            "f.json: results[0].max_scaled_error: expected a number >= 0 or \"inf\" (an error, a time), found the string \"infinite\"");
  j["results"][0]["max_scaled_error"] = 0;
  j["results"][0]["worst"] = {{"index", 0}};
  EXPECT_EQ(refusal(j, JsonFormat::report), "f.json: results[0].worst.grad_cos: expected a hex float (C99 %a, as 0x1.8p-1), found nothing");
}

// Layouts: written and read back to the same layout; refusals name the field.
TEST(JsonSchema, LayoutsRoundTrip) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const ref::Layout a = ref::random_layout(seed, {.batch = 3, .seq_len = 3000, .max_image_side = 40, .vary_rope = true});
    const ref::Layout b = layout_from_json(layout_to_json(a));
    EXPECT_EQ(layout_to_json(a), layout_to_json(b));
    EXPECT_EQ(ref::angles(a), ref::angles(b));
    EXPECT_EQ(b.seq_len(), 3000);
  }
}

TEST(JsonSchema, BadLayoutsNameTheField) {
  auto message = [](const std::string& text) {
    try {
      layout_from_json(text, "l.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(message(R"({"schema":"x"})"), "l.json: schema: expected \"rope2d.layout/1\", found the string \"x\"");
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"image":[2]}]]})"),
            "l.json: batch[0][0].image: expected [h, w], found an array of 1");
  EXPECT_NE(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":2}],[{"text":3}]]})").find("batch[1]"), std::string::npos);
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","rope":{"head_dim":6},"batch":[[{"text":2}]]})"),
            "l.json: rope.head_dim: expected a positive multiple of 4, at most 65536, found the number 6");
  EXPECT_NE(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":-1}]]})").find("batch[0][0]: token count must be positive"), std::string::npos);
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":"a"}]]})"),
            "l.json: batch[0][0].text: expected an integer, found the string \"a\"");
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":1,"pos":2}]]})"),
            "l.json: batch[0][0]: expected a text segment of the key \"text\" alone, found an object of 2 keys");
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"txt":1}]]})"),
            "l.json: batch[0][0].txt: expected only text, image, marker and pos, found this field");
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":2},{"marker":1,"pos":0}]]})"), "accepted");
  // Beyond 64-bit signed integers: refused as written, never read as a negative number.
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":2},{"marker":1,"pos":18446744073709551615}]]})"),
            "l.json: batch[0][1].pos: expected an integer below 2^63, found the number 18446744073709551615");
  EXPECT_EQ(message(R"({"schema":"rope2d.layout/1","batch":[[{"text":9223372036854775808}]]})"),
            "l.json: batch[0][0].text: expected an integer below 2^63, found the number 9223372036854775808");
  EXPECT_NE(message(std::string(10, '[') + std::string(10, ']')).find("expected at most 6 levels of nesting"), std::string::npos);
}

// The torch peers' output (python/rope2d/bench_torch.py): its schema first, then one row per
// workload asked for, in order, and the project's kernel in each row where the peers ran it.
// A NaN, which Python's json writes by default, is no JSON: the peers write null instead.
TEST(JsonSchema, TorchPeersRowsAreTheWorkloadsAskedFor) {
  const json times = {{"event_ms", 0.02}, {"kernel_ms", nullptr}};
  const json test = {{"wins", 40}, {"losses", 10}, {"ties", 0}, {"p", 1e-5}, {"median_diff_ms", 0.001}};
  json row = {{"workload", "2x773"}, {"kernel_clock", "unavailable: no trace"}, {"eager", times}, {"compile", times}};
  json doc = {{"device", "NVIDIA H100"}, {"torch", "2.5.1"}, {"workloads", {row}}};
  auto message = [](const json& d, const std::vector<std::string>& asked, bool paired) {
    try {
      read_bench_torch(d.dump(), "peers", asked, paired);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(doc, {"2x773"}, false), "accepted");
  EXPECT_EQ(message(doc, {"2x773", "1x1801"}, false),
            "peers: workloads: expected an array of 2 (one row per workload asked for), found an array of 1");
  EXPECT_EQ(message(doc, {"1x1801"}, false),
            "peers: workloads[0].workload: expected \"1x1801\" (the workloads in the order asked for), found the string \"2x773\"");
  EXPECT_EQ(message(doc, {"2x773"}, true),
            "peers: workloads[0].rope2d: expected the project's kernel timed beside the peers (they ran with --library), found nothing");
  doc["workloads"][0]["rope2d"] = times;
  doc["workloads"][0]["paired_events"] = test;
  doc["workloads"][0]["rope2d_v2p"] = {{"unread", true}};  // a configuration's row, passed on
  EXPECT_EQ(message(doc, {"2x773"}, true), "accepted");
  doc["workloads"][0]["paired_events"]["p"] = 2;
  EXPECT_EQ(message(doc, {"2x773"}, true), "peers: workloads[0].paired_events.p: expected a p-value in [0, 1], found the number 2");
  doc["workloads"][0]["paired_events"]["p"] = 0.5;
  doc["workloads"][0]["compile"].erase("kernel_ms");
  EXPECT_EQ(message(doc, {"2x773"}, false),
            "peers: workloads[0].compile.kernel_ms: expected a median time in ms, >= 0, or null (no kernel clock), found nothing");
  EXPECT_NE(message(json(), {}, false).find("peers: (top): expected an object (the torch peers' timings)"), std::string::npos);
  std::string nan = R"({"device": "d", "torch": "t", "workloads": [{"workload": "2x773", "kernel_clock": "c",)";
  nan += R"( "eager": {"event_ms": 0.02, "kernel_ms": NaN}, "compile": {"event_ms": 0.01, "kernel_ms": null}}]})";
  EXPECT_THROW(read_bench_torch(nan, "peers", {"2x773"}, false), std::invalid_argument);
}

}  // namespace
