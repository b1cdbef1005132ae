// The mismatch message (model/mismatch.cpp) and where it is shown: indices as (b, s, d), the
// count and share of mismatched elements, the greatest absolute and relative differences at
// their own elements beside the tier's allowance there; in the terminal summary, report.md
// and JUnit beside the hex FAIL lines and the reproduce command, and kept through report.json.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "rope2d/ref/backward.hpp"
#include "rope2d/verify/model/mismatch.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

constexpr std::int64_t batch = 2, seq = 3, dim = 128;
constexpr std::int64_t flat(std::int64_t b, std::int64_t s, std::int64_t d) { return (b * seq + s) * dim + d; }
// Element A: the largest absolute error (1.0 on a result of 2); element B: the largest
// relative one (0.01 on a result of 1e-3); every other element exact.
constexpr std::int64_t at_a = flat(1, 2, 5), at_b = flat(0, 1, 100);

struct Perturbed {
  Problem p;
  Expected x;
  std::vector<float> out;
};

Perturbed perturbed() {
  std::vector<ref::Element> e;
  for (std::int64_t i = 0; i < batch * seq * dim; ++i) e.push_back({1.0, 2.0, 0.5f + 0.001f * static_cast<float>(i)});
  e[at_a] = {0.0, 2.0, 0.0f};                          // exactly 2
  e[at_b] = {0.0, static_cast<double>(1e-3f), 0.0f};  // exactly gs: 1e-3f
  Perturbed c{problem_of("shaped", ref::Dtype::fp32, e), {}, {}};
  c.x = compute_expected(c.p);
  c.out = c.x.fp32;
  c.out[at_a] += 1.0f;
  c.out[at_b] += 0.01f;
  return c;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

SetResult shaped_result(const Metrics& m) {
  SetResult r;
  r.name = "shaped/fp32/2x3";
  r.set = "shaped";
  r.dtype = ref::Dtype::fp32;
  r.metrics = m;
  r.integrity = "ok";
  r.shape = {batch, seq, dim};
  r.reproduce = "rope2d verify --only shaped/fp32/2x3";
  return r;
}

}  // namespace

TEST(IndexText, UnravelsRowMajor) {
  const std::vector<std::int64_t> shape{batch, seq, dim};
  EXPECT_EQ(index_text(at_a, shape), "(1, 2, 5)");
  EXPECT_EQ(index_text(0, shape), "(0, 0, 0)");
  EXPECT_EQ(index_text(batch * seq * dim - 1, shape), "(1, 2, 127)");
  EXPECT_EQ(index_text(7, std::vector<std::int64_t>{1001}), "(7)");
  // No shape, or one that cannot hold the index: the flat index, never a wrong triple.
  EXPECT_EQ(index_text(7, {}), "(7)");
  EXPECT_EQ(index_text(batch * seq * dim, shape), "(768)");
  EXPECT_EQ(index_text(-1, shape), "(-1)");
}

TEST(MismatchLines, NameEachGreatestDifferenceAtItsOwnIndexWithTheAllowanceThere) {
  const Perturbed c = perturbed();
  const Metrics m = compare(c.p, c.x, c.out.data(), Tier::float32_bound);
  ASSERT_FALSE(m.passes(Tier::float32_bound));
  ASSERT_TRUE(m.greatest_abs && m.greatest_rel);
  EXPECT_EQ(m.greatest_abs->index, at_a);
  EXPECT_EQ(m.greatest_rel->index, at_b);
  const std::vector<std::string> lines = mismatch_lines(m, Tier::float32_bound, std::vector<std::int64_t>{batch, seq, dim});
  ASSERT_EQ(lines.size(), 4u) << joined(lines);
  EXPECT_EQ(lines[0], "Mismatched elements: 2 / 768 (0.3%)");
  // The worst element in units of 2^-24 S is B (its S is 1e-3: 0.01 is 2^24 * 10 of those).
  EXPECT_TRUE(lines[1].starts_with("Worst element: ")) << lines[1];
  EXPECT_NE(lines[1].find(" at index (0, 1, 100) (up to "), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(" x 2^-24 S allowed there)"), std::string::npos) << lines[1];
  // What was allowed at A: the tier's allowance of that element, as within() applies it.
  const ref::Element a = c.p.element(at_a);
  const double allowed_a = judged_allowance(Tier::float32_bound, a, c.x.fp32[at_a], ref::condition_scale(a));
  EXPECT_EQ(lines[2], fmt::format("Greatest absolute difference: 1 at index (1, 2, 5) (up to {:.3g} allowed there)", allowed_a));
  const ref::Element b = c.p.element(at_b);
  const double allowed_b = judged_allowance(Tier::float32_bound, b, c.x.fp32[at_b], ref::condition_scale(b)) / 1e-3f;
  const double rel_b = std::fabs(static_cast<double>(c.out[at_b]) - c.x.fp32[at_b]) / c.x.fp32[at_b];
  EXPECT_EQ(lines[3], fmt::format("Greatest relative difference: {:.3g} at index (0, 1, 100) (up to {:.3g} allowed there)", rel_b,
                                  allowed_b));
  // Another gate, another allowance: SOL-ExecBench's 1e-5 + 1e-5 |ref| at A.
  const std::vector<std::string> sxb = mismatch_lines(m, Tier::solexecbench, std::vector<std::int64_t>{batch, seq, dim});
  EXPECT_EQ(sxb[2], fmt::format("Greatest absolute difference: 1 at index (1, 2, 5) (up to {:.3g} allowed there)",
                                1e-5 + 1e-5 * std::fabs(c.x.fp32[at_a])));
}

TEST(MismatchLines, ShareKeepsDigitsForAFewMismatchesInALargeOutput) {
  Metrics m;
  m.count = 67108864;
  m.over[static_cast<int>(Tier::float32_bound)] = 3;
  EXPECT_EQ(mismatch_lines(m, Tier::float32_bound, {})[0], "Mismatched elements: 3 / 67108864 (4.5e-06%)");
  m.over[static_cast<int>(Tier::float32_bound)] = 67108864;
  EXPECT_EQ(mismatch_lines(m, Tier::float32_bound, {})[0], "Mismatched elements: 67108864 / 67108864 (100.0%)");
  EXPECT_TRUE(mismatch_lines(Metrics{}, Tier::float32_bound, {}).empty()) << "nothing compared, nothing to say";
}

TEST(MismatchLines, WithoutTheElementsTheValuesStandAloneAndSaySo) {
  // The GPU pass keeps the greatest differences' values only (gpu_check.hpp).
  Metrics m;
  m.count = 10;
  m.over[static_cast<int>(Tier::float32_bound)] = 1;
  m.sxb.max_abs = 0.5;
  m.sxb.max_rel = 0.25;
  const std::vector<std::string> lines = mismatch_lines(m, Tier::float32_bound, {});
  ASSERT_EQ(lines.size(), 3u) << joined(lines);
  EXPECT_EQ(lines[1], "Greatest absolute difference: 0.5 (the GPU comparison keeps no index)");
  EXPECT_TRUE(lines[2].starts_with("Greatest relative difference: 0.25 (")) << lines[2];
}

TEST(MismatchLines, TheGreatestDifferenceIsTheSameElementWhateverTheMergeOrder) {
  ElementReport lo{10, {1.0, 1.0, 1.0f}, 1.0f, 2.0f, 0, 0}, hi{20, {1.0, 1.0, 1.0f}, 1.0f, 2.0f, 0, 0};
  Metrics a, b;
  a.greatest_abs = a.greatest_rel = hi;
  b.greatest_abs = b.greatest_rel = lo;
  Metrics ab = a, ba = b;
  ab.merge(b, 0);
  ba.merge(a, 0);
  EXPECT_EQ(ab.greatest_abs->index, 10);
  EXPECT_EQ(ba.greatest_abs->index, 10);
  EXPECT_EQ(ab.greatest_rel->index, 10);
}

TEST(MismatchShown, InTheSummaryMarkdownAndJUnitBesideFailLinesAndReproduce) {
  const Perturbed c = perturbed();
  Report r;
  r.title = "mismatch";
  r.results.push_back(shaped_result(compare(c.p, c.x, c.out.data(), Tier::float32_bound)));
  const std::string s = summary(r);
  const std::size_t mismatch = s.find("    Mismatched elements: 2 / 768 (0.3%)\n"), fail = s.find("    FAIL shaped/fp32/2x3 i="),
                    repro = s.find("    reproduce: rope2d verify --only shaped/fp32/2x3");
  EXPECT_NE(s.find("    Greatest absolute difference: 1 at index (1, 2, 5) (up to "), std::string::npos) << s;
  ASSERT_NE(mismatch, std::string::npos) << s;
  ASSERT_NE(fail, std::string::npos) << s;
  ASSERT_NE(repro, std::string::npos) << s;
  EXPECT_LT(mismatch, fail);
  EXPECT_LT(fail, repro);
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("\nMismatched elements: 2 / 768 (0.3%)\nWorst element: "), std::string::npos) << md;
  EXPECT_NE(md.find("\nFAIL shaped/fp32/2x3 i="), std::string::npos) << md;
  const std::string junit = render_junit(r);
  EXPECT_NE(junit.find("Greatest relative difference: "), std::string::npos) << junit;
  EXPECT_NE(junit.find("at index (0, 1, 100)"), std::string::npos) << junit;
}

TEST(MismatchShown, NotForASetThatPasses) {
  const Perturbed c = perturbed();
  Report r;
  r.title = "exact";
  r.results.push_back(shaped_result(compare(c.p, c.x, c.x.fp32.data(), Tier::float32_bound)));
  EXPECT_EQ(summary(r).find("Mismatched"), std::string::npos) << summary(r);
  EXPECT_EQ(render_markdown(r).find("Mismatched"), std::string::npos);
  EXPECT_EQ(render_junit(r).find("Mismatched"), std::string::npos);
}

TEST(MismatchShown, KeptThroughReportJson) {
  const Perturbed c = perturbed();
  Report r;
  r.title = "json";
  r.results.push_back(shaped_result(compare(c.p, c.x, c.out.data(), Tier::float32_bound)));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rope2d_mismatch_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "report.json") << render_json(r);
  const Report back = read_report_json((dir / "report.json").string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(back.results.size(), 1u);
  EXPECT_EQ(mismatch_lines(back.results[0].metrics, back.gate, back.results[0].shape),
            mismatch_lines(r.results[0].metrics, r.gate, r.results[0].shape));
}
