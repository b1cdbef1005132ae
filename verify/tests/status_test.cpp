// The one table from causes to SOL-ExecBench statuses (status.hpp), over the whole enum: every
// cause has one row whose disposition and status agree, every official status is reached, and
// a result of each cause carries that one status into trace.jsonl, report.json (read back) and
// junit.xml; docs/solexecbench.md's table says the same. A new cause fails to compile here
// until it has a result that shows it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <string>

#include "codec/names.hpp"
#include "rope2d/verify/products/report_files.hpp"

using namespace rope2d::verify;
using nlohmann::json;

namespace {

constexpr Tier gate = Tier::float32_bound;

// A result whose cause is c, made the way the verifier makes one (fields, not the cause itself).
SetResult result_of(Cause c) {
  SetResult r{"randn/bf16/2x773", "randn", rope2d::ref::Dtype::bf16};
  r.shape = {2, 773, 128};
  r.integrity = "ok";
  r.metrics.count = 100;
  r.metrics.correctly_rounded = 100;
  switch (c) {
    case Cause::passed: break;
    case Cause::numerical:
      r.metrics.over.fill(60);
      r.metrics.sxb.max_abs = 0.5;
      break;
    case Cause::integrity: r.integrity = "inputs modified by the call"; break;
    case Cause::contract:
      r.integrity = "contract violation: n == 0 wrote to the output";
      r.finding_cause = Cause::contract;
      break;
    case Cause::shape:
    case Cause::dtype:
    case Cause::build:
    case Cause::timeout:
    case Cause::runtime:
    case Cause::verifier:
    case Cause::no_gpu: r.fail("why: " + std::string(name(c)), c); break;
    case Cause::not_supported: r.not_supported = "declined grad dtype fp16"; break;
  }
  return r;
}

std::vector<json> lines(const std::string& text) {
  std::vector<json> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) v.push_back(json::parse(line));
  return v;
}

Report report_of(Cause c) {
  Report rep;
  rep.title = "status_test";
  rep.gate = gate;
  rep.header = {{"submission", "k.cu"}};
  rep.results.push_back(result_of(c));
  return rep;
}

std::string dir_for(Cause c) {
  std::string n(name(c));
  for (char& ch : n)
    if (ch == ' ') ch = '_';
  return ::testing::TempDir() + "/status_test_" + n;
}

}  // namespace

TEST(Status, EveryCauseHasOneConsistentRow) {
  std::set<std::string> names;
  for (Cause c : all_causes) {
    SCOPED_TRACE(std::string(name(c)));
    EXPECT_TRUE(names.insert(std::string(name(c))).second) << "two causes share a name";
    EXPECT_EQ(parse_cause(name(c), "cause"), c);
    const CauseRow row = cause_row(c);
    EXPECT_FALSE(row.why.empty());
    // PASSED exactly where the disposition is passed; no status exactly where not supported.
    EXPECT_EQ(row.status == SxbStatus::passed, row.disposition == Disposition::passed);
    EXPECT_EQ(!row.status.has_value(), row.disposition == Disposition::not_supported);
    // A set with an error never passes and is never judged incorrect; a finding is judged.
    if (error_cause(c)) {
      EXPECT_TRUE(row.disposition == Disposition::failed || row.disposition == Disposition::skipped);
    }
    if (finding_cause(c)) {
      EXPECT_EQ(row.disposition, Disposition::incorrect);
    }
    EXPECT_FALSE(error_cause(c) && finding_cause(c));
    // Nothing judged (no GPU) is never a pass.
    if (row.disposition == Disposition::skipped) {
      EXPECT_NE(row.status, SxbStatus::passed);
    }
  }
  EXPECT_THROW(parse_cause("REWARD_HACK", "cause"), std::invalid_argument);  // a status is not a cause
  EXPECT_THROW(parse_cause("", "cause"), std::invalid_argument);
}

TEST(Status, EveryOfficialStatusIsReached) {
  std::set<std::string> names;
  for (SxbStatus s : all_sxb_statuses) {
    SCOPED_TRACE(std::string(name(s)));
    EXPECT_TRUE(names.insert(std::string(name(s))).second);
    bool reached = false;
    for (Cause c : all_causes) reached |= sxb_status(c) == s;
    EXPECT_TRUE(reached) << "no cause gives this status: a CI script could never see it";
  }
  EXPECT_EQ(names.size(), 9u);  // SOL-ExecBench's EvaluationStatus has nine values
}

// Each cause's result carries its one status through every format that carries a status.
TEST(Status, EveryCauseReachesTraceJsonAndJUnit) {
  for (Cause c : all_causes) {
    SCOPED_TRACE(std::string(name(c)));
    const Report rep = report_of(c);
    ASSERT_EQ(rep.results[0].cause(gate), c) << "result_of does not make this cause";
    EXPECT_EQ(rep.results[0].disposition(gate), disposition(c));
    const std::optional<SxbStatus> st = sxb_status(c);
    // trace.jsonl: the status, with correctness and performance as the model demands.
    const std::vector<json> t = lines(render_trace(rep));
    ASSERT_EQ(t.size(), st ? 1u : 0u);
    if (st) {
      const json& e = t[0]["evaluation"];
      EXPECT_EQ(e["status"], name(*st));
      EXPECT_EQ(e.contains("correctness"), *st == SxbStatus::passed || *st == SxbStatus::incorrect_numerical);
      EXPECT_EQ(e.contains("performance"), *st == SxbStatus::passed);
      EXPECT_EQ(t[0]["workload"]["axes"], json({{"batch_size", 2}, {"seq_len", 773}}));
      EXPECT_EQ(e["log"].get<std::string>().empty(), c == Cause::passed);
    }
    // report.json: cause and status written, read back to the same cause and the same trace.
    const std::string dir = dir_for(c);
    write_report(dir, rep);
    std::ifstream in(dir + "/report.json");
    const json j = json::parse(in);
    EXPECT_EQ(j["results"][0]["cause"], name(c));
    EXPECT_EQ(j["results"][0]["status"], st ? json(name(*st)) : json(nullptr));
    const Report back = read_report_json(dir + "/report.json");
    EXPECT_EQ(back.results.at(0).cause(gate), c);
    EXPECT_EQ(render_trace(back), render_trace(rep));
    // junit.xml: the status as the type of the failure, error or skipped element.
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file((dir + "/junit.xml").c_str()));
    const pugi::xml_node tc = doc.child("testsuite").child("testcase");
    const pugi::xml_node outcome = tc.first_child();
    if (c == Cause::passed) {
      EXPECT_TRUE(outcome.empty());
    } else {
      ASSERT_FALSE(outcome.empty());
      EXPECT_EQ(std::string(outcome.attribute("type").value()), st ? std::string(name(*st)) : std::string());
      const Disposition d = disposition(c);
      const char* want = d == Disposition::incorrect ? "failure" : d == Disposition::failed ? "error" : "skipped";
      EXPECT_STREQ(outcome.name(), want);
    }
  }
}

// A field holding a kind that is not its own never lets a set pass or change its disposition.
TEST(Status, MislabelledKindsFallBack) {
  for (Cause c : all_causes) {
    SCOPED_TRACE(std::string(name(c)));
    SetResult failed = result_of(Cause::passed);
    failed.fail("boom", c);
    EXPECT_EQ(failed.cause(gate), error_cause(c) ? c : Cause::runtime);
    SetResult found = result_of(Cause::passed);
    found.integrity = "guard band changed";
    found.finding_cause = c;
    EXPECT_EQ(found.cause(gate), finding_cause(c) ? c : Cause::integrity);
  }
}

// The reader refuses a report.json whose status or cause does not follow from its result.
TEST(Status, ReaderRefusesAStatusOrCauseThatDoesNotFollow) {
  const std::string dir = dir_for(Cause::integrity) + "_edited";
  write_report(dir, report_of(Cause::integrity));
  const std::string path = dir + "/report.json";
  std::ifstream in(path);
  const json original = json::parse(in);
  in.close();
  ASSERT_NO_THROW(read_report_json(path));  // the control: as written, it reads
  const auto refused = [&](const char* field, const json& value) {
    json j = original;
    j["results"][0][field] = value;
    std::ofstream(path) << j.dump(2);
    try {
      read_report_json(path);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find("results[0].") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused("status", "PASSED"));
  EXPECT_TRUE(refused("status", "INCORRECT_NUMERICAL"));
  EXPECT_TRUE(refused("status", nullptr));
  EXPECT_TRUE(refused("cause", "numerical"));  // the integrity finding is still recorded
  EXPECT_TRUE(refused("cause", "timeout"));    // no error recorded
  EXPECT_TRUE(refused("cause", "cheated"));    // not a cause
}

// docs/solexecbench.md's table has one row per cause, with this table's disposition and status.
TEST(Status, TheDocumentedTableIsThisOne) {
  std::ifstream in(std::string(ROPE2D_DOCS_DIR) + "/solexecbench.md");
  ASSERT_TRUE(in) << "docs/solexecbench.md not found";
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| `", 0) == 0) rows.push_back(line);
  for (Cause c : all_causes) {
    SCOPED_TRACE(std::string(name(c)));
    const std::string start = "| `" + std::string(name(c)) + "` |";
    int found = 0;
    for (const std::string& row : rows) {
      if (row.rfind(start, 0) != 0) continue;
      ++found;
      const std::optional<SxbStatus> st = sxb_status(c);
      const std::string tail = " | " + std::string(name(disposition(c))) + " | " +
                               (st ? "`" + std::string(name(*st)) + "`" : std::string("none: no trace line")) + " |";
      EXPECT_TRUE(row.size() >= tail.size() && row.compare(row.size() - tail.size(), tail.size(), tail) == 0)
          << row << "\n  should end with: " << tail;
    }
    EXPECT_EQ(found, 1) << "rows for this cause in docs/solexecbench.md";
  }
}
