// The reports committed under reports/: every SVG and JUnit file is well-formed XML, every
// report.json reads back, and its junit.xml marks each set that did not pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "rope2d/verify/products/report_files.hpp"
#include "xml_check.hpp"

namespace rope2d::verify {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> committed(const std::string& suffix) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(ROPE2D_REPORTS_DIR))
    if (e.is_regular_file() && e.path().filename().string().ends_with(suffix)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CommittedReports, EverySvgAndJUnitFileIsWellFormedXml) {
  std::vector<fs::path> files = committed(".svg");
  const std::vector<fs::path> junit = committed("junit.xml");
  files.insert(files.end(), junit.begin(), junit.end());
  ASSERT_GE(files.size(), 8u) << "reports/ holds 4 verifier reports and 2 nightly runs";
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(test::xml_problem(text), "") << f;
    pugi::xml_document doc;
    const pugi::xml_parse_result res = doc.load_buffer(text.data(), text.size());
    EXPECT_TRUE(res) << f << ": " << res.description() << " at byte " << res.offset;
    if (f.extension() == ".svg") {
      EXPECT_TRUE(doc.child("svg")) << f;
    }
  }
}

TEST(CommittedReports, EveryReportJsonReadsBackAndItsJUnitMarksFailures) {
  const std::vector<fs::path> reports = committed("report.json");
  ASSERT_GE(reports.size(), 4u);
  for (const fs::path& f : reports) {
    const Report r = read_report_json(f.string());
    EXPECT_FALSE(r.results.empty()) << f;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file((f.parent_path() / "junit.xml").c_str())) << f;
    std::size_t marked = 0, not_passed = 0;
    for (pugi::xml_node c : doc.child("testsuite").children("testcase"))
      marked += c.child("failure") || c.child("error") || c.child("skipped");
    for (const auto& s : r.results) not_passed += !s.passed(r.gate);
    EXPECT_EQ(marked, not_passed) << f;
    EXPECT_EQ(doc.child("testsuite").attribute("tests").as_ullong(), r.results.size()) << f;
  }
}

// Read back and written again, a committed report.json keeps every field and value it had
// (RMS errors to the last bit or so: the reader keeps the RMS, not the sum of squares); the
// writer only adds each set's histograms, and describes the tiers as today's table does.
// Reports written before the tiers were renamed: their old names read as today's.
std::string ignored;
void canonical_tier_names(nlohmann::json& j) {
  auto canon = [](const nlohmann::json& v) { return std::string(name(*parse_tier(v.get<std::string>(), &ignored))); };
  j["gate"] = canon(j["gate"]);
  for (auto& t : j["tiers"]) t["tier"] = canon(t["tier"]);
  for (auto& r : j["results"]) {
    nlohmann::json renamed;
    for (auto& [k, v] : r["tiers"].items()) renamed[canon(k)] = v;
    r["tiers"] = renamed;
  }
}

TEST(CommittedReports, ReportJsonIsWrittenAgainUnchanged) {
  for (const fs::path& f : committed("report.json")) {
    std::ifstream in(f);
    nlohmann::json before = nlohmann::json::parse(in);
    nlohmann::json after = nlohmann::json::parse(render_json(read_report_json(f.string())));
    canonical_tier_names(before);
    ASSERT_EQ(before["results"].size(), after["results"].size()) << f;
    for (std::size_t k = 0; k < before["results"].size(); ++k) {
      auto &b = before["results"][k], &a = after["results"][k];
      EXPECT_TRUE(a.contains("histogram") && a.contains("max_by_angle")) << f;
      // Reports recorded before the plots' data was kept: compared without it.
      for (const char* key : {"histogram", "max_by_angle"})
        if (!b.contains(key)) a.erase(key);
      if (b["rms_scaled_error"].is_number() && a["rms_scaled_error"].is_number()) {
        const double rb = b["rms_scaled_error"], ra = a["rms_scaled_error"];
        EXPECT_NEAR(ra, rb, 1e-15 * rb) << f << " results[" << k << "]";
      } else {
        EXPECT_EQ(a["rms_scaled_error"], b["rms_scaled_error"]) << f << " results[" << k << "]";
      }
      a.erase("rms_scaled_error");
      b.erase("rms_scaled_error");
      // Reports recorded before the subnormal mode and accepted overflows were: written now with
      // them, as read (none seen).
      for (const char* key : {"subnormals", "subnormal_mode", "subnormal_modes", "subnormal_unexplained", "overflow_accepted"})
        if (!b.contains(key)) a.erase(key);
      // Reports recorded before SOL-ExecBench's rules were followed exactly, and before the
      // shape was kept: written now with what was read (nothing seen).
      for (const char* key : {"nonfinite", "solexecbench", "shape"})
        if (!b.contains(key)) a.erase(key);
      // Reports recorded before each result's cause and SOL-ExecBench status were: written now
      // with them, as the recorded error, findings and metrics give them.
      for (const char* key : {"cause", "status"})
        if (!b.contains(key)) a.erase(key);
    }
    for (const char* key : {"subnormal_mode", "overflow_accepted", "timestamp"})
      if (!before.contains(key)) after.erase(key);
    // The tier list is today's table (its wording has changed since some runs); names agree.
    ASSERT_EQ(after["tiers"].size(), before["tiers"].size()) << f;
    for (std::size_t k = 0; k < before["tiers"].size(); ++k) EXPECT_EQ(after["tiers"][k]["tier"], before["tiers"][k]["tier"]) << f;
    after.erase("tiers");
    before.erase("tiers");
    // On a difference, the JSON patch from the committed file to the rewritten one (not both files).
    EXPECT_TRUE(after == before) << f << ": " << nlohmann::json::diff(before, after).dump().substr(0, 2000);
  }
}

}  // namespace
}  // namespace rope2d::verify
