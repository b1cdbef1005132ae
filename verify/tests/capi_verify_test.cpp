// The C API's rope2d_verify (capi.h) as a binding sees it, through librope2d_py.so alone: a C
// function as the harness, its outputs from the library's own reference. Each set is called
// round by round in order with its place and shape; a call failed with a cause gets that
// status and ends its set; a call that fails without saying why is named; a finding makes the
// set incorrect; ROPE2D_CALL_STOP ends the run without a report; bad arguments are refused.
// Controls: the same function without its defect passes, and the header holds the caller's
// lines, the confinement line and the verifier's.
#include "rope2d/verify/products/capi.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Seen {
  std::string name;
  std::int64_t index, count;
  int round;
};

// The caller's function, as a std::function the C callback forwards to.
using Body = std::function<int(const rope2d_call&)>;

struct Caller {
  Body body;
  std::vector<Seen> seen;
};

int trampoline(void* user, const rope2d_call* call) {
  auto& c = *static_cast<Caller*>(user);
  c.seen.push_back({call->name, call->index, call->count, call->round});
  return c.body(*call);
}

// The exact output: the library's correctly rounded reference.
int exact(const rope2d_call& c) {
  return rope2d_reference(c.gc, c.gs, c.theta, c.n, c.grad_dtype, ROPE2D_DT_FP32, c.out) == 0 ? ROPE2D_CALL_OK
                                                                                               : ROPE2D_CALL_STOP;
}

struct Outcome {
  int rc = -1, exit_code = -1;
  std::string summary, error;
  fs::path dir;
  json report() const {
    std::ifstream f(dir / "report.json");
    return json::parse(f);
  }
};

Outcome run(Caller& c, const std::string& name, const json& options = json::object()) {
  json o = {{"suite", "smoke"}, {"grad_dtypes", {"bf16", "fp32"}}, {"reproduce_prefix", "replay("}};
  o.update(options);
  Outcome r;
  r.dir = fs::path(::testing::TempDir()) / ("capi_verify_" + name);
  fs::remove_all(r.dir);
  char* summary = nullptr;
  const json header = json::array({json::array({"submission", "test function"}), json::array({"kind", "C function (test)"})});
  r.rc = rope2d_verify(o.dump().c_str(), trampoline, &c, r.dir.c_str(), "rope2d verify: test", header.dump().c_str(),
                       R"(["a warning"])", &summary, &r.exit_code);
  if (summary) r.summary = summary;
  rope2d_free(summary);
  r.error = rope2d_last_error();
  return r;
}

TEST(CapiVerify, ExactOutputsPassWithEverySetCalledRoundByRound) {
  Caller c{exact};
  const Outcome r = run(c, "exact", {{"rounds", 3}});
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.summary;
  const json rep = r.report();
  const json& results = rep.at("results");
  ASSERT_FALSE(results.empty());
  ASSERT_EQ(c.seen.size(), 3 * results.size());
  for (std::size_t k = 0; k < results.size(); ++k) {
    const std::string name = results[k].at("name");
    EXPECT_EQ(results[k].at("status"), "PASSED") << name;
    EXPECT_EQ(results[k].at("reproduce"), "replay(only='" + name + "')");
    for (int round = 0; round < 3; ++round) {
      const Seen& s = c.seen[3 * k + static_cast<std::size_t>(round)];
      EXPECT_EQ(s.name, name);
      EXPECT_EQ(s.index, static_cast<std::int64_t>(k));
      EXPECT_EQ(s.count, static_cast<std::int64_t>(results.size()));
      EXPECT_EQ(s.round, round);
    }
  }
  // The caller's lines first, then what the harness says of itself, then the verifier's.
  const json& h = rep.at("header");
  EXPECT_EQ(h.at("submission"), "test function");
  EXPECT_NE(h.at("confinement").get<std::string>().find("caller's own process (no box)"), std::string::npos);
  EXPECT_TRUE(h.contains("time") && h.contains("reference") && h.contains("seeds"));
  EXPECT_EQ(rep.at("title"), "rope2d verify: test");
  EXPECT_EQ(rep.at("warnings"), json::array({"a warning"}));
}

TEST(CapiVerify, ShapeAndInputsAreTheSets) {
  Caller c{[](const rope2d_call& call) -> int {
    std::int64_t n = 1;
    for (int i = 0; i < call.rank; ++i) n *= call.shape[i];
    if (n != call.n || call.offsets == nullptr || (call.n > 0 && (!call.gc || !call.theta || !call.out))) {
      rope2d_call_fail(&call, "runtime", "the call's shape or pointers disagree");
      return ROPE2D_CALL_FAILED;
    }
    for (std::int64_t i = 0; i < call.n; ++i)
      if (call.out[i] == call.out[i]) return ROPE2D_CALL_STOP;  // not pre-filled with NaN
    return exact(call);
  }};
  const Outcome r = run(c, "shape");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.summary;
}

TEST(CapiVerify, AFailedCallGetsItsCauseAndEndsItsSet) {
  Caller c{[](const rope2d_call& call) -> int {
    if (call.index != 0) return exact(call);
    EXPECT_EQ(rope2d_call_fail(&call, "shape", "expected [1, 64, 128], found [64, 128]"), 0);
    EXPECT_EQ(rope2d_call_fail(&call, "runtime", "a second failure"), 0);  // the first one is kept
    return ROPE2D_CALL_OK;  // a call given a failure fails whatever it returns
  }};
  const Outcome r = run(c, "fail");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.exit_code, 3);
  const json first = r.report().at("results").at(0);
  EXPECT_EQ(first.at("status"), "INCORRECT_SHAPE");
  EXPECT_EQ(first.at("error"), "expected [1, 64, 128], found [64, 128]");
  EXPECT_EQ(c.seen.at(1).index, 1) << "a set ends at its first failed call";
}

TEST(CapiVerify, AFailureWithoutWordsIsNamed) {
  Caller c{[](const rope2d_call& call) -> int { return call.index == 0 ? 7 : exact(call); }};
  const Outcome r = run(c, "silent");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.exit_code, 3);
  const json first = r.report().at("results").at(0);
  EXPECT_EQ(first.at("status"), "RUNTIME_ERROR");
  EXPECT_EQ(first.at("error"), "the call failed (its function returned 7)");
}

TEST(CapiVerify, AFindingMakesTheSetIncorrect) {
  Caller c{[](const rope2d_call& call) -> int {
    if (call.index == 1) rope2d_call_finding(&call, "inputs modified by the call");
    rope2d_call_finding(&call, "");  // adds nothing
    return exact(call);
  }};
  const Outcome r = run(c, "finding");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.exit_code, 1);
  const json results = r.report().at("results");
  EXPECT_EQ(results.at(0).at("integrity"), "ok");
  EXPECT_EQ(results.at(1).at("integrity"), "inputs modified by the call");
  EXPECT_EQ(results.at(1).at("status"), "REWARD_HACK");
}

TEST(CapiVerify, StopEndsTheRunWithoutAReport) {
  Caller c{[](const rope2d_call& call) -> int {
    if (call.index < 2) return exact(call);
    rope2d_call_fail(&call, "runtime", "interrupted");
    return ROPE2D_CALL_STOP;
  }};
  const Outcome r = run(c, "stop");
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.error.find("stopped by the caller in"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("interrupted"), std::string::npos) << r.error;
  EXPECT_FALSE(fs::exists(r.dir / "report.json"));
  EXPECT_EQ(c.seen.size(), 5u);  // two sets of two rounds, then the stop
}

TEST(CapiVerify, BadArgumentsAreRefused) {
  Caller c{[](const rope2d_call& call) -> int {
    EXPECT_EQ(rope2d_call_fail(&call, "integrity", "not the caller's to say"), 2);
    EXPECT_NE(std::string(rope2d_last_error()).find("expected runtime, timeout, shape or dtype"), std::string::npos);
    EXPECT_EQ(rope2d_call_fail(&call, "runtime", ""), 2);
    return exact(call);
  }};
  EXPECT_EQ(run(c, "bad_cause", {{"only", "randn/bf16/1x64"}}).exit_code, 0);
  EXPECT_EQ(rope2d_call_fail(nullptr, "runtime", "no call"), 2);
  EXPECT_EQ(rope2d_call_finding(nullptr, "no call"), 2);
  Caller none{exact};
  EXPECT_EQ(run(none, "rounds", {{"rounds", 0}}).rc, 2);
  // Whole numbers in range, as `rope2d verify` takes them: no wrap, no truncation.
  for (const json& bad : {json{{"rounds", 2.7}}, json{{"rounds", "2"}}, json{{"seed", -1}}, json{{"seed", (1ull << 48) + 1}},
                          json{{"seed", 18446744073709551615ull}}, json{{"seed", 1.5}}}) {
    EXPECT_EQ(run(none, "whole", bad).rc, 2) << bad.dump();
    EXPECT_NE(std::string(rope2d_last_error()).find("expected a whole number from"), std::string::npos) << rope2d_last_error();
  }
  EXPECT_EQ(run(none, "only", {{"only", "no/such/set"}}).rc, 2);
  EXPECT_TRUE(none.seen.empty());
  char* summary = nullptr;
  int code = 0;
  EXPECT_EQ(rope2d_verify("{}", nullptr, nullptr, "x", "", "", "", &summary, &code), 2);
  EXPECT_EQ(rope2d_verify("{}", trampoline, &none, "", "", "", "", &summary, &code), 2);
  EXPECT_EQ(rope2d_verify("[", trampoline, &none, "x", "", "", "", &summary, &code), 2);
}

}  // namespace
