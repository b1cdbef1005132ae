// The report writers under adversarial names: every XML file must parse (pugixml) with the
// markup characters of a name coming back intact, JUnit must carry <failure>, <error> and
// <skipped> elements, JSON must parse (nlohmann), and report.json must read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "../src/products/report/xml.hpp"
#include "products/report/layout_svg.hpp"
#include "codec/names.hpp"
#include "codec/markdown_text.hpp"
#include "codec/plain_text.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "xml_check.hpp"

namespace rope2d::verify {
namespace {

namespace fs = std::filesystem;

const std::string nasty = std::string("<a&b\"c'd]]>e\x01\x1b\x7f") + "\xff\xc3(" + "\xed\xa0\x80" + "end";

Metrics metrics(std::int64_t count, std::int64_t over_strict) {
  Metrics m;
  m.count = count;
  m.correctly_rounded = count / 2;
  m.max_scaled = over_strict ? 40.5 : 1.25;
  m.sum_sq_scaled = 0.25 * count;
  m.max_ulp = 3;
  m.over[static_cast<int>(Tier::float32_bound)] = over_strict;
  m.histogram[0] = count / 2;
  m.histogram[9] = count - count / 2;
  m.max_by_angle[3] = m.max_scaled;
  ElementReport e;
  e.index = 7;
  e.in = {0x1.8p+0, -0x1.4p-1, 0x1.2d97c8p+9f};
  e.ref = 0x1.0fc6e6p-1f;
  e.got = over_strict ? 0x1.0fc8p-1f : e.ref;
  e.scaled_error = m.max_scaled;
  e.ulps = 3;
  m.worst = e;
  if (over_strict) m.failures.push_back(e);
  return m;
}

Report sample(const std::string& label) {
  Report r;
  r.title = "report " + label;
  r.header = {{"submission", label}, {"compile", "nvcc -O3 '" + label + "'"}};
  r.warnings = {"warning " + label};
  SetResult good{"randn/bf16/" + label, "randn" + label, ref::Dtype::bf16, metrics(1000, 0), "ok"};
  SetResult bad{"layout/bf16/" + label, "layout" + label, ref::Dtype::bf16, metrics(1000, 3), "ok"};
  bad.reproduce = "rope2d verify --only '" + label + "'";
  SetResult failed{"odd/fp16/" + label, "odd", ref::Dtype::fp16, {}, "", "kernel faulted: " + label};
  SetResult skipped{"fused:layout/bf16/" + label, "layout", ref::Dtype::bf16, {}, "", "", "no fused entry point: " + label};
  SetResult integrity{"long/fp32/" + label, "long", ref::Dtype::fp32, metrics(10, 0), "wrote an input: " + label};
  // Subnormal values seen, judged IEEE only, and one overflow accepted.
  integrity.metrics.subnormal_modes[0] = 3;
  integrity.metrics.subnormal_modes[flush_angle] = 2;
  integrity.metrics.subnormal_unexplained = 1;
  integrity.metrics.overflow_accepted = 1;
  integrity.metrics.subnormals = Subnormals::ieee;
  r.results = {good, bad, failed, skipped, integrity};
  return r;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Written : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("rope2d_report_test_" + std::to_string(::getpid()));
  void TearDown() override { fs::remove_all(dir); }
};

TEST(XmlSafe, KeepsUtf8AndShowsEverythingElse) {
  EXPECT_EQ(xml::xml_safe("plain \t\n\r text"), "plain \t\n\r text");
  EXPECT_EQ(xml::xml_safe("\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80"), "\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80");
  EXPECT_EQ(xml::xml_safe(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(xml::xml_safe("\x01\x1f\x7f"), "\\x01\\x1f\\x7f");
  EXPECT_EQ(xml::xml_safe("\xc0\xaf"), "\\xc0\\xaf");                 // overlong '/'
  EXPECT_EQ(xml::xml_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");        // a surrogate
  EXPECT_EQ(xml::xml_safe("\xe6\xbc"), "\\xe6\\xbc");                 // cut short
  EXPECT_EQ(xml::xml_safe("\xef\xbf\xbe"), "\\xef\\xbf\\xbe");        // U+FFFE
  EXPECT_EQ(xml::xml_safe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  EXPECT_EQ(xml::xml_safe("<&>\"'"), "<&>\"'");                      // markup is pugixml's to escape
}

TEST_F(Written, EveryXmlFileParsesWithNamesIntact) {
  write_report(dir.string(), sample(nasty));
  for (const char* f : {"junit.xml", "error_histogram.svg", "error_by_angle.svg"}) {
    const std::string text = read(dir / f);
    EXPECT_EQ(test::xml_problem(text), "") << f;
    pugi::xml_document doc;
    const pugi::xml_parse_result res = doc.load_buffer(text.data(), text.size());
    EXPECT_TRUE(res) << f << ": " << res.description() << " at " << res.offset;
  }
  // The plots' tooltips hold "<=2^-k": escaped in the file, "<" again once parsed.
  pugi::xml_document svg;
  ASSERT_TRUE(svg.load_file((dir / "error_histogram.svg").c_str()));
  EXPECT_TRUE(svg.select_node("//rect/title[starts-with(., 'bf16 <=2^-8: ')]")) << read(dir / "error_histogram.svg");
  EXPECT_EQ(read(dir / "error_histogram.svg").find("<=2^"), std::string::npos);
}

// The plots people read: values on both axes (tick labels), the gate's allowance as a dashed
// line, a log scale where the values span decades, and a note where nothing can be drawn.
std::vector<std::string> texts(const pugi::xml_document& doc) {
  std::vector<std::string> t;
  for (const auto& n : doc.select_nodes("//text")) t.push_back(n.node().text().get());
  return t;
}
bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
}

TEST(Plots, AxesWithValuesTheAllowanceAndALogScaleWhereTheDataSpansDecades) {
  const Report r = sample("x");
  for (const std::string& svg : {render_error_histogram_svg(r), render_error_by_angle_svg(r)}) {
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_string(svg.c_str()));
    const std::vector<std::string> t = texts(doc);
    EXPECT_TRUE(has(t, "allowance 6")) << svg;
    EXPECT_TRUE(doc.select_node("//line[@stroke-dasharray]")) << "the allowance is drawn";
    EXPECT_FALSE(has(t, "Every element exact"));
    // Tick labels on the value axis: at least two round numbers.
    int ticks = 0;
    for (const auto& n : doc.select_nodes("//text[@text-anchor='end']")) ticks += std::isdigit(static_cast<unsigned char>(n.node().text().get()[0])) != 0;
    EXPECT_GE(ticks, 2) << svg;
  }
  // Counts 500 and 5 (the fp32 set's 10 elements) span a factor of 100: a log scale.
  pugi::xml_document hist;
  ASSERT_TRUE(hist.load_string(render_error_histogram_svg(r).c_str()));
  EXPECT_TRUE(has(texts(hist), "elements (log scale)"));
  // Largest errors 40.5 and 1.25 (and the allowance 6): within a factor of 100, linear from zero.
  pugi::xml_document angle;
  ASSERT_TRUE(angle.load_string(render_error_by_angle_svg(r).c_str()));
  EXPECT_FALSE(has(texts(angle), "(log scale)"));
  EXPECT_TRUE(has(texts(angle), "40")) << "the axis reaches the largest error";
}

TEST(Plots, ANoteWhereEveryElementIsExactOrNoSetRan) {
  Report exact;
  SetResult s{"randn/bf16/1x64", "randn", ref::Dtype::bf16, {}, "ok"};
  s.metrics.count = s.metrics.correctly_rounded = 8192;
  s.metrics.histogram[0] = 8192;
  exact.results = {s};
  Report none;
  none.results = {SetResult{"odd/fp16/7", "odd", ref::Dtype::fp16, {}, "", "kernel faulted"}};
  for (const auto& [r, note] : {std::pair{exact, "Every element exact"}, std::pair{none, "No set ran"}})
    for (const std::string& svg : {render_error_histogram_svg(r), render_error_by_angle_svg(r)}) {
      pugi::xml_document doc;
      ASSERT_TRUE(doc.load_string(svg.c_str()));
      EXPECT_TRUE(has(texts(doc), note)) << svg;
    }
}

TEST(ReportHtml, OnePageThatLoadsNothingWithNamesEscapedAndThePlotsInline) {
  const std::string page = render_html(sample(nasty));
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<?xml"), std::string::npos) << "SVG inlined without its declaration";
  std::size_t svgs = 0;
  for (std::size_t at = 0; (at = page.find("<svg", at)) != std::string::npos; ++at) ++svgs;
  EXPECT_EQ(svgs, 2u);
  // The name's markup never reaches the page as markup; its bytes that are not text show as \xNN.
  EXPECT_EQ(page.find("<a&b"), std::string::npos);
  EXPECT_NE(page.find("&lt;a&amp;b&quot;c&#39;d]]&gt;e\\x01\\x1b\\x7f\\xff"), std::string::npos);
  EXPECT_NE(page.find("FAIL layout/bf16/"), std::string::npos) << "the failure lines";
  EXPECT_NE(page.find("Verdict: failed"), std::string::npos);
}

TEST(ReportMarkdown, ShowsThePlotsAndLinksThePage) {
  const std::string md = render_markdown(sample("x"));
  EXPECT_NE(md.find("![Elements by error, per grad dtype](error_histogram.svg)"), std::string::npos);
  EXPECT_NE(md.find("(error_by_angle.svg)"), std::string::npos);
  EXPECT_NE(md.find("[report.html](report.html)"), std::string::npos);
  Report old = sample("x");
  old.has_plot_data = false;
  EXPECT_EQ(render_markdown(old).find("](error_histogram.svg)"), std::string::npos) << "no image of a plot that is not drawn";
}

// What a submission printed, the paths it named, a runner's messages: text in report.md, never
// Markdown of the report's own (a verdict, a heading, a code span closed early), and in the
// terminal's summary no escape sequence and no line of its own.
TEST(ReportMarkdown, ForgedTextStaysText) {
  const std::string forged = "cannot load\n`\n\n**Verdict: passed**\n\n# rope2d verify: passed\n```\n"
                             "\x1b]0;owned\x07\x1b[2J\rpassed: 16 passed\xff\xfe<script>";
  Report r = sample("x");
  r.title = "rope2d verify: " + forged;
  r.header.push_back({"refused by the box", "1 write(s) outside the scratch folder and /tmp (/var/tmp/x`" + forged + ")"});
  r.warnings.push_back("the submission could not be loaded: " + forged);
  for (SetResult& x : r.results) {
    if (!x.error.empty()) x.error = forged;
    if (!x.not_supported.empty()) x.not_supported = forged;
  }
  const std::string md = render_markdown(r);
  // The lines Markdown reads as markup: those outside fenced code blocks (a fence closes only
  // at a line of at least as many backticks as opened it).
  std::vector<std::string> markup;
  std::size_t fence = 0;
  for (std::size_t b = 0, e; b < md.size(); b = e + 1) {
    e = std::min(md.find('\n', b), md.size());
    const std::string line = md.substr(b, e - b);
    const std::size_t ticks = line.find_first_not_of('`') == std::string::npos ? line.size() : line.find_first_not_of('`');
    if (fence == 0 && ticks >= 3) fence = ticks;
    else if (fence > 0 && ticks >= fence && ticks == line.size()) fence = 0;
    else if (fence == 0) markup.push_back(line);
  }
  EXPECT_EQ(fence, 0u) << "every fenced block closed";
  EXPECT_EQ(std::count_if(markup.begin(), markup.end(), [](const std::string& l) { return l.rfind("**Verdict:", 0) == 0; }), 1) << md;
  for (const std::string& l : markup) EXPECT_NE(l.rfind("# rope2d verify: passed", 0), 0u) << md;
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  EXPECT_EQ(md.find('\r'), std::string::npos);
  EXPECT_EQ(md.find("\xff"), std::string::npos);
  EXPECT_NE(md.find("\\x1b]0;owned\\x07"), std::string::npos) << "the bytes shown, not dropped";
  // Every fenced block closes where it opened: the forged ``` inside one is fenced by more.
  EXPECT_NE(md.find("````\n"), std::string::npos) << md;
  const std::string text = summary(r);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find("\npassed"), std::string::npos);
  EXPECT_EQ(text.find("\n# rope2d"), std::string::npos);
}

TEST(PlainText, ShowsControlsAndMalformedBytesAndIndentsLaterLines) {
  EXPECT_EQ(plain_text("caf\xc3\xa9\tok\n"), "caf\xc3\xa9\tok\n");
  EXPECT_EQ(plain_text("\x1b[2J\rx\x07\xc2\x9b\xff"), "\\x1b[2J\\x0dx\\x07\\xc2\\x9b\\xff");
  EXPECT_EQ(plain_text("a\nb\nc", "    "), "a\n    b\n    c");
  EXPECT_EQ(plain_line("a\nb\tc"), "a\\x0ab\\x09c");
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`x"), "`` `x ``");
  EXPECT_EQ(markdown_code("x\n\ny"), "`x\\x0a\\x0ay`");
  EXPECT_EQ(markdown_prose("one line *"), "one line \\*");
  EXPECT_EQ(markdown_prose("first\n```\nlast\n"), "first\n\n````\n```\nlast\n````");
}

TEST_F(Written, JUnitCarriesFailureErrorAndSkippedElements) {
  write_report(dir.string(), sample(nasty));
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file((dir / "junit.xml").c_str()));
  const pugi::xml_node suite = doc.child("testsuite");
  ASSERT_TRUE(suite);
  EXPECT_EQ(suite.attribute("tests").as_int(), 5);
  EXPECT_EQ(suite.attribute("failures").as_int(), 2);
  EXPECT_EQ(suite.attribute("errors").as_int(), 1);
  EXPECT_EQ(suite.attribute("skipped").as_int(), 1);
  const std::string safe = xml::xml_safe(nasty);
  EXPECT_EQ(std::string(suite.attribute("name").value()), "report " + safe);
  std::map<std::string, pugi::xml_node> cases;
  for (pugi::xml_node c : suite.children("testcase")) cases[c.attribute("name").value()] = c;
  ASSERT_EQ(cases.size(), 5u);
  const pugi::xml_node good = cases["randn/bf16/" + safe], bad = cases["layout/bf16/" + safe];
  ASSERT_TRUE(good && bad);
  EXPECT_FALSE(good.first_child()) << "a passed set has no child element";
  EXPECT_EQ(std::string(good.attribute("classname").value()), "rope2d.randn" + safe);
  const pugi::xml_node failure = bad.child("failure");
  ASSERT_TRUE(failure);
  EXPECT_EQ(std::string(failure.attribute("message").value()), "3 of 1000 elements over float32-bound");
  EXPECT_NE(std::string(failure.text().get()).find("FAIL layout/bf16/" + safe + " i=7"), std::string::npos) << failure.text().get();
  const pugi::xml_node error = cases["odd/fp16/" + safe].child("error");
  ASSERT_TRUE(error);
  EXPECT_EQ(std::string(error.attribute("message").value()), "kernel faulted: " + safe);
  const pugi::xml_node skipped = cases["fused:layout/bf16/" + safe].child("skipped");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(std::string(skipped.attribute("message").value()), "no fused entry point: " + safe);
  EXPECT_EQ(std::string(cases["long/fp32/" + safe].child("failure").attribute("message").value()), "wrote an input: " + safe);
}

TEST_F(Written, JsonParsesAndNamesTheDispositions) {
  write_report(dir.string(), sample(nasty));
  const auto j = nlohmann::json::parse(read(dir / "report.json"));  // throws on invalid UTF-8
  EXPECT_EQ(j["verdict"], "failed");
  std::vector<std::string> d;
  for (const auto& r : j["results"]) d.push_back(r["disposition"]);
  EXPECT_EQ(d, (std::vector<std::string>{"passed", "incorrect", "failed", "not supported", "incorrect"}));
  EXPECT_EQ(j["results"][0]["name"].get<std::string>().substr(0, 22), "randn/bf16/<a&b\"c'd]]>");
}

TEST(JUnitSuites, SeveralSuitesGoUnderTestsuitesWithTotals) {
  std::vector<JUnitSuite> suites = {
      {"verify <&>", {{"nightly", "rope2d", Outcome::failure, "verdict \"incorrect\"", "", 92.5}, {"nightly", "cand.cu", Outcome::passed}}},
      {"sweep", {{"nightly", "angle sweep", Outcome::skipped, "no GPU"}}},
      {"regressions", {{"nightly", "randn/bf16/2x773", Outcome::failure, "max error 3.1 -> 4.2"}}}};
  const std::string text = render_junit(suites);
  EXPECT_EQ(test::xml_problem(text), "");
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(text.c_str()));
  const pugi::xml_node root = doc.child("testsuites");
  EXPECT_EQ(root.attribute("tests").as_int(), 4);
  EXPECT_EQ(root.attribute("failures").as_int(), 2);
  EXPECT_EQ(root.attribute("skipped").as_int(), 1);
  EXPECT_EQ(std::string(root.child("testsuite").attribute("name").value()), "verify <&>");
  EXPECT_EQ(std::string(root.child("testsuite").child("testcase").attribute("time").value()), "92.500");
  EXPECT_EQ(std::string(root.child("testsuite").child("testcase").child("failure").attribute("message").value()), "verdict \"incorrect\"");
  EXPECT_EQ(std::distance(root.children("testsuite").begin(), root.children("testsuite").end()), 3);
}

// Reading report.json back gives the same report: every other file is drawn identically.
TEST_F(Written, ReportJsonReadsBackToTheSameFiles) {
  Report r = sample("clean");
  // A run that died at its start: a set of no one grad dtype, written "" and read back as none.
  r.results.push_back(SetResult{"startup", "", std::nullopt, {}, "", "the process exited with status 1"});
  write_report(dir.string(), r);
  const Report back = read_report_json((dir / "report.json").string());
  ASSERT_TRUE(back.has_plot_data);
  for (const ReportWriter& w : report_writers()) EXPECT_EQ(w.render(back), w.render(r)) << w.file;
  for (std::size_t k = 0; k < r.results.size(); ++k) EXPECT_EQ(back.results[k].dtype, r.results[k].dtype) << r.results[k].name;
  EXPECT_EQ(nlohmann::json::parse(read(dir / "report.json"))["results"].back()["grad_dtype"], "");
}

// The subnormal mode and accepted overflows: per set and overall in report.json and report.md.
TEST_F(Written, SubnormalModeAndOverflowAreReported) {
  write_report(dir.string(), sample("clean"));
  const auto j = nlohmann::json::parse(read(dir / "report.json"));
  const auto& s = j["results"][4];
  EXPECT_EQ(s["subnormals"], "ieee");
  EXPECT_EQ(s["subnormal_mode"], "flushes angle (2)");
  EXPECT_EQ(s["subnormal_modes"][0], 3);
  EXPECT_EQ(s["subnormal_unexplained"], 1);
  EXPECT_EQ(s["overflow_accepted"], 1);
  EXPECT_EQ(j["results"][0]["subnormal_mode"], "no subnormal values");
  EXPECT_EQ(j["results"][0]["subnormals"], "flush_allowed");
  EXPECT_EQ(j["subnormal_mode"], "flushes angle (2)");
  EXPECT_EQ(j["overflow_accepted"], 1);
  const std::string md = read(dir / "report.md");
  EXPECT_NE(md.find("Overall: subnormal mode flushes angle (2); 1 infinities"), std::string::npos) << md;
  EXPECT_NE(md.find("- long/fp32/clean: flushes angle (2), IEEE demanded; overflow accepted 1"), std::string::npos) << md;
  EXPECT_EQ(md.find("- randn/bf16/clean:"), std::string::npos);  // saw no subnormal values: no line
}

// Reports written before the subnormal fields existed read back with zero counts.
TEST_F(Written, ReportsWithoutSubnormalFieldsReadBack) {
  write_report(dir.string(), sample("clean"));
  const fs::path file = dir / "report.json";
  auto j = nlohmann::ordered_json::parse(read(file));
  j.erase("subnormal_mode");
  j.erase("overflow_accepted");
  for (auto& r : j["results"])
    for (const char* k : {"subnormals", "subnormal_mode", "subnormal_modes", "subnormal_unexplained", "overflow_accepted"}) r.erase(k);
  std::ofstream(file, std::ios::trunc) << j.dump();
  const Report back = read_report_json(file.string());
  ASSERT_EQ(back.results.size(), 5u);
  const Metrics& m = back.results[4].metrics;
  EXPECT_EQ(m.subnormal_modes[0] + m.subnormal_modes[flush_angle] + m.subnormal_unexplained + m.overflow_accepted, 0);
  EXPECT_EQ(m.subnormals, Subnormals::flush_allowed);
  EXPECT_EQ(back.verdict(), Disposition::failed);
}

TEST_F(Written, WrongTypesAreRefusedNamingTheField) {
  write_report(dir.string(), sample("clean"));
  const fs::path file = dir / "report.json";
  const auto original = nlohmann::ordered_json::parse(read(file));
  auto expect_refused = [&](auto edit, const std::string& needle) {
    auto j = original;
    edit(j);
    std::ofstream(file, std::ios::trunc) << j.dump();
    try {
      read_report_json(file.string());
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
  };
  using J = nlohmann::ordered_json;
  expect_refused([](J& j) { j["results"][1]["elements"] = "1000"; }, "results[1].elements: expected a count >= 0, found the string \"1000\"");
  expect_refused([](J& j) { j["results"][0]["worst"]["ref"] = 1.5; }, "results[0].worst.ref: expected a hex float (C99 %a, as 0x1.8p-1), found the number 1.5");
  expect_refused([](J& j) { j["results"][0]["worst"]["ref"] = "zero"; }, "results[0].worst.ref: expected a hex float");
  expect_refused([](J& j) { j["results"][0].erase("name"); }, "results[0].name: expected a string, found nothing");
  expect_refused([](J& j) { j["results"][0]["histogram"] = J::array({1, 2}); }, "results[0].histogram: expected an array of 20, found an array of 2");
  expect_refused([](J& j) { j["results"][0]["tiers"]["float32-bound"]["over"] = 5; }, "results[0].disposition: expected \"incorrect\"");
  expect_refused([](J& j) { j["results"] = J::object(); }, "results: expected an array, found an object of 0 keys");
  expect_refused([](J& j) { j["results"][4]["subnormal_modes"] = J::array({1}); }, "results[4].subnormal_modes: expected an array of 16");
  expect_refused([](J& j) { j["results"][4]["overflow_accepted"] = -1; }, "results[4].overflow_accepted: expected a count >= 0");
  // Errors and times are magnitudes: a negative one is no measurement (each field of that kind).
  expect_refused([](J& j) { j["results"][0]["max_ulp"] = -3; }, "results[0].max_ulp: expected a number >= 0 or \"inf\"");
  expect_refused([](J& j) { j["results"][0]["worst"]["ulps"] = -0.5; }, "results[0].worst.ulps: expected a number >= 0");
  expect_refused([](J& j) { j["results"][0]["solexecbench"]["max_rel"] = -1e-3; }, "results[0].solexecbench.max_rel: expected a number >= 0");
  expect_refused([](J& j) { j["results"][0]["max_scaled_error"] = "-inf"; }, "results[0].max_scaled_error: expected a number >= 0");
  expect_refused([](J& j) { j["results"][4]["subnormals"] = "sometimes"; }, "results[4].subnormals: expected \"ieee\" or \"flush_allowed\"");
  expect_refused([](J& j) { j["results"][0]["grad_dtype"] = "fp8"; },
                 "results[0].grad_dtype: expected bf16, fp16, fp32 or \"\" (a set of no one dtype), found the string \"fp8\"");
  expect_refused([](J& j) { j["gate"] = "lenient"; }, "gate: expected a tier name");
  expect_refused([](J& j) { j["verdict"] = "passed"; }, "verdict: expected \"failed\"");
  // A name that is no disposition: the field and the value found named.
  expect_refused([](J& j) { j["verdict"] = "PASSED"; }, "verdict: expected one of passed, incorrect, failed, not supported, skipped, found the string \"PASSED\"");
  expect_refused([](J& j) { j["results"][2]["disposition"] = "ok"; }, "results[2].disposition: expected one of passed,");
  std::ofstream(file, std::ios::trunc) << "{\"title\": ";
  EXPECT_THROW(read_report_json(file.string()), std::invalid_argument);
}

// Every disposition's name reads back as itself; anything else throws naming the field and the
// value, bounded and escaped (the text comes from files others wrote).
TEST(Disposition, NamesReadBackAndOthersAreRefused) {
  for (Disposition d : all_dispositions) EXPECT_EQ(parse_disposition(name(d), "x"), d);
  EXPECT_EQ(name(Disposition::not_supported), "not supported");
  for (const std::string& bad : {std::string(), std::string("Passed"), std::string("not_supported"), std::string("passed "),
                                std::string("pass\ned"), std::string(500, 'p')}) {
    try {
      parse_disposition(bad, "sets.randn.disposition");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("sets.randn.disposition: expected one of passed, incorrect, failed, not supported, skipped, found ", 0), 0u) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_LT(m.size(), 200u) << m;
    }
  }
}

// A layout drawing: one rectangle per segment whose tooltip gives its kind, its token span
// and its position range, computed here from the layout rules independently.
TEST(LayoutSvg, OneRectanglePerSegmentWithItsPositions) {
  ref::Layout l;
  l.batch = {{{ref::Segment::Kind::text, 5}, {ref::Segment::Kind::image, 0, 2, 3}, {ref::Segment::Kind::marker, 2, 0, 0, 4},
              {ref::Segment::Kind::text, 1}}};
  // text: y = x = 0..4; the 2x3 image starts at L = 5: y = 5 + (6-2)/2 + r = 7..8, x = 5 + (6-3)/2 + c = 6..8;
  // markers at position 4 (indices 11, 12); the last text token at index 13.
  const std::string text = layout_svg(l, nasty);
  EXPECT_EQ(test::xml_problem(text), "");
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(text.c_str())) << text;
  std::vector<std::string> titles;
  for (const auto& n : doc.select_nodes("//rect/title")) titles.push_back(n.node().text().get());
  EXPECT_EQ(titles, (std::vector<std::string>{"text x5: tokens [0, 5), y = x in [0, 4]",
                                              "image 2x3: tokens [5, 11), y in [7, 8], x in [6, 8]",
                                              "marker x2 at 4: tokens [11, 13), y = x in [4, 4]",
                                              "text x1: tokens [13, 14), y = x in [13, 13]"}));
  EXPECT_NE(std::string(doc.select_node("/svg/text").node().text().get()).find("Layout: " + xml::xml_safe(nasty)), std::string::npos);
  // A random layout of two long sequences draws every segment too.
  const ref::Layout r = ref::random_layout(3, {2, 5000, 32, false});
  pugi::xml_document big;
  ASSERT_TRUE(big.load_string(layout_svg(r, "seed 3").c_str()));
  std::size_t segments = 0;
  for (const auto& seq : r.batch) segments += seq.size();
  EXPECT_EQ(big.select_nodes("//rect/title").size(), segments);
}

}  // namespace
}  // namespace rope2d::verify
