// Unit tests of the nightly regression rules on summaries shaped like summary.json.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>

#include "codec/markdown_text.hpp"
#include "products/nightly/nightly.hpp"
#include "products/nightly/nightly_input.hpp"
#include "products/nightly/nightly_report.hpp"
#include "harness/spawn.hpp"

using nlohmann::json;

namespace {

json night(double seconds, const std::string& disposition, double max, long elements, double sweep_max) {
  return {{"verify",
           {{{"kernel", "rope2d"},
             {"seconds", seconds},
             {"sets", {{"layout/bf16/64x8192", {{"disposition", disposition}, {"max", max}, {"elements", elements}}},
                       {"odd/bf16/n=1", {{"disposition", "passed"}, {"max", max}, {"elements", 1}}}}}}}},
          {"sweep", {{"ran", true}, {"max_scaled_error", sweep_max}}}};
}

// The rules on the summaries as read back from summary.json.
std::vector<std::string> regressions(const json& now, const json& previous) {
  using namespace rope2d::verify;
  return nightly_regressions(night_summary_from_json(now), night_summary_from_json(previous));
}

}  // namespace

TEST(Nightly, TheSameNightTwiceHasNoRegression) {
  EXPECT_TRUE(regressions(night(90, "passed", 3.5, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1)).empty());
}

TEST(Nightly, ASetThatNoLongerPassesIsARegression) {
  const auto r = regressions(night(90, "incorrect", 3.5, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].find("newly incorrect"), std::string::npos);
}

TEST(Nightly, LargerMaxErrorCountsOnlyOnLargeSets) {
  // 3.5 -> 5.0 units: beyond 1.25x + 0.25 on the large set; the 1-element set moved as much
  // but is noise, and stays silent.
  const auto r = regressions(night(90, "passed", 5.0, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].find("layout/bf16/64x8192: max error 5"), std::string::npos);
  EXPECT_TRUE(regressions(night(90, "passed", 4.0, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1)).empty());
}

TEST(Nightly, MaxErrorsBeyondTheSTermDoNotCompare) {
  // A passing subnormal set's max error of 1.61e3 one night and 2.42e3 the next (x 2^-24 S, as
  // on the H200): allowed by the subnormal term, which fresh inputs move; no regression. From
  // within the S term's 6 units a rise counts, also past them.
  EXPECT_TRUE(regressions(night(90, "passed", 2420, 1 << 26, 3.1), night(90, "passed", 1610, 1 << 26, 3.1)).empty());
  EXPECT_EQ(regressions(night(90, "passed", 9.0, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1)).size(), 1u);
  EXPECT_EQ(regressions(night(90, "passed", 5.9, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1)).size(), 1u);
}

TEST(Nightly, SlowerRunsAndWorseSweepsAreRegressions) {
  const auto slow = regressions(night(130, "passed", 3.5, 1 << 26, 3.1), night(90, "passed", 3.5, 1 << 26, 3.1));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].find("verify took 130"), std::string::npos);
  const auto sweep = regressions(night(90, "passed", 3.5, 1 << 26, 6.0), night(90, "passed", 3.5, 1 << 26, 3.1));
  ASSERT_EQ(sweep.size(), 1u);
  EXPECT_NE(sweep[0].find("sweep"), std::string::npos);
}

TEST(Nightly, AFirstRunOrAMissingKernelComparesNothing) {
  EXPECT_TRUE(regressions(night(90, "incorrect", 9, 1 << 26, 9), json::object()).empty());
  json other = night(90, "passed", 1, 1 << 26, 3.1);
  other["verify"][0]["kernel"] = "candidate";
  other["sweep"]["ran"] = false;
  EXPECT_TRUE(regressions(night(90, "incorrect", 9, 1 << 26, 9), other).empty());
}

// Names from shard files in summary.md: text only, on one line, escaping what makes markup.
TEST(Nightly, MarkdownTextMakesNoMarkup) {
  using rope2d::verify::markdown_text;
  EXPECT_EQ(markdown_text("near_overflow/bf16/1x32"), "near_overflow/bf16/1x32");
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("[x](<y>)"), "\\[x\\](\\<y\\>)");
  EXPECT_EQ(markdown_text("line\n# heading\r"), "line\\x0a# heading\\x0d");
  EXPECT_EQ(markdown_text("`code` *em* &amp; ![i]"), "\\`code\\` \\*em\\* \\&amp; \\!\\[i\\]");
  EXPECT_EQ(markdown_text("https://x.org ~~s~~ www.y.org"), "https\\://x.org \\~\\~s\\~\\~ www\\.y.org");
  EXPECT_EQ(markdown_text("\\"), "\\\\");
  EXPECT_EQ(markdown_text("caf\xc3\xa9 \xff\xc3("), "caf\xc3\xa9 \\xff\\xc3(");  // valid UTF-8 kept, invalid bytes shown
}

TEST(Nightly, LinkTargetsStayInTheFolder) {
  using rope2d::verify::safe_link_target;
  EXPECT_TRUE(safe_link_target("verify-rope2d-bf16/report.md"));
  EXPECT_TRUE(safe_link_target("verify-my kernel-bf16.log"));
  for (const char* bad : {"", "/etc/passwd", "verify-rope2d-../../../outside.log", "../x", "a/./b", "a//b", "a/", "x<y", "x>y",
                          "a\\..\\b", "a\nb"})
    EXPECT_FALSE(safe_link_target(bad)) << bad;
}

TEST(Nightly, RunDatesAreDatesOnly) {
  using rope2d::verify::valid_run_date;
  EXPECT_TRUE(valid_run_date("2026-12-03"));
  EXPECT_FALSE(valid_run_date("../../x"));
  EXPECT_FALSE(valid_run_date("2026-12-03/../../x"));
  EXPECT_FALSE(valid_run_date("2026-13-01"));
  EXPECT_FALSE(valid_run_date("2026-12-00"));
  EXPECT_FALSE(valid_run_date("2026/12/03"));
  EXPECT_FALSE(valid_run_date("2026-1a-03"));
  EXPECT_FALSE(valid_run_date(""));
  EXPECT_FALSE(valid_run_date("2026-02-30"));  // days of the calendar only
  EXPECT_FALSE(valid_run_date("2026-02-29"));
  EXPECT_TRUE(valid_run_date("2028-02-29"));
  EXPECT_FALSE(valid_run_date("2100-02-29"));
  EXPECT_TRUE(valid_run_date("2000-02-29"));
  EXPECT_FALSE(valid_run_date("2026-04-31"));
}

// An earlier summary.json that does not read: named by file and field, never a bare JSON error;
// times out of range and strings too long for what they name refused.
TEST(Nightly, EarlierSummariesAreReadWithTheirFileNamed) {
  using namespace rope2d::verify;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("nightly_summary_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "summary.json").string();
  auto refused = [&](const json& j, const std::string& field) {
    std::ofstream(path) << j.dump();
    try {
      read_previous_summary(path);
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      return m.find(path) != std::string::npos && m.find(field) != std::string::npos;
    }
    return false;
  };
  json ok = night(10, "passed", 1, 10, 3);
  std::ofstream(path) << ok.dump();
  EXPECT_NO_THROW(read_previous_summary(path));  // the control: a good one reads
  json j = ok;
  j["regressions"] = 5;  // a list in every summary this program writes
  EXPECT_TRUE(refused(j, ""));
  j = ok, j["verify"][0]["seconds"] = 1e308;
  EXPECT_TRUE(refused(j, "verify[0].seconds"));
  j = ok, j["verify"][0]["seconds"] = -1;
  EXPECT_TRUE(refused(j, "verify[0].seconds"));
  j = ok, j["commit"] = std::string(300, 'c');
  EXPECT_TRUE(refused(j, "commit"));
  j = ok, j["date"] = "2026-02-30";
  EXPECT_TRUE(refused(j, "date"));
  std::filesystem::remove_all(dir);
}

// A night whose latest earlier summary does not read compares with the one before it and says
// so, instead of failing this night and every later one.
TEST(Nightly, AnUnreadableEarlierSummaryIsSetAside) {
  using namespace rope2d::verify;
  const std::filesystem::path root = std::filesystem::temp_directory_path() / ("nightly_root_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "2026-12-01");
  std::filesystem::create_directories(root / "2026-12-02");
  json before = night(10, "passed", 1, 10, 3);
  before["date"] = "2026-12-01";
  std::ofstream((root / "2026-12-01" / "summary.json").string()) << before.dump();
  std::ofstream((root / "2026-12-02" / "summary.json").string()) << "{\"verify\": 7";  // cut short
  NightSummary now = night_summary_from_json(night(10, "incorrect", 1, 10, 3));
  now.date = "2026-12-03";
  const NightReport r = write_nightly_report(root.string(), now, {});
  EXPECT_FALSE(r.ok);  // the set that stopped passing is still a regression, against 2026-12-01
  const json written = json::parse(std::ifstream((root / "2026-12-03" / "summary.json").string()));
  EXPECT_EQ(written.value("previous", ""), "2026-12-01");
  ASSERT_TRUE(written.contains("warnings"));
  EXPECT_NE(written["warnings"][0].get<std::string>().find("2026-12-02"), std::string::npos);
  EXPECT_FALSE(written["regressions"].empty());
  std::filesystem::remove_all(root);
}

TEST(Nightly, ChildProcessesGetTheirArgumentsVerbatim) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rope2d_nightly_spawn_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string log = (dir / "echo.log").string();
  const std::string evil = "x'; touch " + (dir / "PWNED").string() + "; echo '";
  EXPECT_EQ(rope2d::verify::run_logged({"/bin/echo", evil, "$(touch " + (dir / "PWNED2").string() + ")"}, log).code(), 0);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, evil + " $(touch " + (dir / "PWNED2").string() + ")\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "PWNED"));
  EXPECT_FALSE(std::filesystem::exists(dir / "PWNED2"));
  EXPECT_EQ(rope2d::verify::run_logged({"/bin/sh", "-c", "exit 3"}, log).code(), 3);
  // The extra environment reaches the child, replacing an inherited entry of the same name.
  setenv("ROPE2D_SPAWN_TEST", "inherited", 1);
  EXPECT_EQ(rope2d::verify::run_logged({"/bin/sh", "-c", "echo \"$ROPE2D_SPAWN_TEST $CUDA_VISIBLE_DEVICES\""}, log,
                                       {"ROPE2D_SPAWN_TEST=given", "CUDA_VISIBLE_DEVICES=3"}).code(), 0);
  std::ifstream env_log(log);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(env_log)), {}), "given 3\n");
  const auto slow = rope2d::verify::run_logged({"/bin/sleep", "30"}, log, {}, 0.2);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(slow.code(), 128 + SIGTERM);
  EXPECT_EQ(rope2d::verify::run_logged({(dir / "no-such-program").string()}, log).code(), 127);
  std::filesystem::remove_all(dir);
}

TEST(Nightly, TheSeedComesFromTheDate) {
  using rope2d::verify::nightly_seed;
  EXPECT_EQ(nightly_seed("2026-12-03"), nightly_seed("2026-12-03"));
  EXPECT_NE(nightly_seed("2026-12-03"), nightly_seed("2026-12-04"));
  EXPECT_LT(nightly_seed("2026-12-03"), 1ull << 32);
}
