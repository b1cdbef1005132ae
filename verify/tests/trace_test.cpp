// The Trace JSON lines (products/report/trace.cpp) checked against the structure of SOL-ExecBench's
// Trace model (core/data/trace.py) without Python: required fields and types, the status enum,
// correctness and performance present exactly as each status demands, non-negative errors,
// has_nan and has_inf never both; sets that were not supported leave no line.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "rope2d/verify/products/report_files.hpp"

using namespace rope2d::verify;
using nlohmann::json;

namespace {

SetResult set(const std::string& name, std::vector<std::int64_t> shape) {
  SetResult r{name, "randn", rope2d::ref::Dtype::bf16};
  r.integrity = "ok";
  r.shape = std::move(shape);
  r.metrics.count = 100;
  r.metrics.correctly_rounded = 100;
  return r;
}

Report sample() {
  Report r;
  r.title = "t";
  r.header = {{"submission", "k.cu"}, {"gpu", "NVIDIA H200 (132 SMs, 139 GiB)"}};
  r.results.push_back(set("randn/bf16/2x773", {2, 773, 128}));  // passed
  SetResult nan = set("nonfinite/bf16/n=32+0", {32});  // passes float32-bound, fails SOL-ExecBench's rules
  nan.metrics.sxb.nonfinite = 3;
  nan.metrics.sxb.nan = 2;
  r.results.push_back(nan);
  SetResult bad = set("randn/fp16/1x64", {1, 64, 128});
  bad.metrics.over.fill(60);
  bad.metrics.sxb.max_abs = 0.5;
  bad.metrics.sxb.max_rel = 2;
  r.results.push_back(bad);
  SetResult failed = set("randn/fp32/1x64", {1, 64, 128});
  failed.error = "the kernel did not return";
  r.results.push_back(failed);
  SetResult unsupported = set("randn/fp32/1x65", {1, 65, 128});
  unsupported.not_supported = "declined";
  r.results.push_back(unsupported);
  return r;
}

void expect_trace_shape(const json& t) {
  for (const char* k : {"definition", "workload", "solution", "evaluation"}) ASSERT_TRUE(t.contains(k)) << k;
  EXPECT_FALSE(t["definition"].get<std::string>().empty());
  const json& w = t["workload"];
  ASSERT_TRUE(w["axes"].is_object());
  for (const auto& [k, v] : w["axes"].items()) EXPECT_TRUE(v.is_number_unsigned()) << k;
  ASSERT_TRUE(w["inputs"].is_object());
  for (const char* k : {"grad_cos", "grad_sin", "idx_theta"}) EXPECT_EQ(w["inputs"][k]["type"], "random");
  EXPECT_FALSE(w["uuid"].get<std::string>().empty());
  for (const char* k : {"max_atol", "max_rtol", "required_matched_ratio"}) EXPECT_TRUE(w["tolerance"][k].is_number()) << k;
  const json& e = t["evaluation"];
  const std::string status = e["status"];
  static const std::set<std::string> statuses{"PASSED", "INVALID_REFERENCE", "INCORRECT_SHAPE", "INCORRECT_NUMERICAL", "INCORRECT_DTYPE",
                                              "RUNTIME_ERROR", "COMPILE_ERROR", "TIMEOUT", "REWARD_HACK"};
  EXPECT_TRUE(statuses.count(status)) << status;
  EXPECT_FALSE(e["environment"]["hardware"].get<std::string>().empty());
  EXPECT_FALSE(e["timestamp"].get<std::string>().empty());
  EXPECT_TRUE(e["log"].is_string());
  const bool correctness = e.contains("correctness"), performance = e.contains("performance");
  EXPECT_EQ(correctness, status == "PASSED" || status == "INCORRECT_NUMERICAL") << status;
  EXPECT_EQ(performance, status == "PASSED") << status;
  if (correctness) {
    const json& c = e["correctness"];
    EXPECT_GE(c["max_relative_error"].get<double>(), 0);
    EXPECT_GE(c["max_absolute_error"].get<double>(), 0);
    EXPECT_FALSE(c["has_nan"].get<bool>() && c["has_inf"].get<bool>());
  }
  if (performance) {
    for (const char* k : {"latency_ms", "reference_latency_ms", "speedup_factor"}) EXPECT_GE(e["performance"][k].get<double>(), 0) << k;
  }
}

std::vector<json> parse_lines(const std::string& text) {
  std::vector<json> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) v.push_back(json::parse(line));
  return v;
}

}  // namespace

TEST(Trace, EveryLineHasTheModelsShape) {
  const Report r = sample();
  const std::vector<json> lines = parse_lines(render_trace(r));
  ASSERT_EQ(lines.size(), 4u);  // the unsupported set leaves none
  for (const json& t : lines) expect_trace_shape(t);
  EXPECT_EQ(lines[0]["evaluation"]["status"], "PASSED");
  EXPECT_EQ(lines[0]["workload"]["axes"], json({{"batch_size", 2}, {"seq_len", 773}}));
  EXPECT_EQ(lines[0]["evaluation"]["environment"]["hardware"], "NVIDIA_H200");
  // Our gate passes the matched NaNs; the trace says SOL-ExecBench's rules would not.
  EXPECT_EQ(lines[1]["evaluation"]["status"], "PASSED");
  EXPECT_TRUE(lines[1]["evaluation"]["correctness"]["has_nan"].get<bool>());
  EXPECT_EQ(lines[1]["evaluation"]["correctness"]["max_absolute_error"], 0.0);
  EXPECT_EQ(lines[1]["evaluation"]["correctness"]["extra"]["rope2d_tiers"]["solexecbench"], "fail");
  EXPECT_EQ(lines[2]["evaluation"]["status"], "INCORRECT_NUMERICAL");
  EXPECT_EQ(lines[2]["evaluation"]["correctness"]["max_absolute_error"], 0.5);
  EXPECT_EQ(lines[3]["evaluation"]["status"], "RUNTIME_ERROR");
  EXPECT_EQ(lines[3]["evaluation"]["log"], "the kernel did not return");
}

TEST(Trace, SameFromTheReportReadBack) {
  const Report r = sample();
  const std::string dir = ::testing::TempDir() + "/trace_test_report";
  write_report(dir, r);
  const Report back = read_report_json(dir + "/report.json");
  EXPECT_EQ(render_trace(back), render_trace(r));
  EXPECT_EQ(back.timestamp, r.timestamp);
}
