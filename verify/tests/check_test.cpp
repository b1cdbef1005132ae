// Unit tests of the file-based path: outputs written by defective CPU implementations are
// judged incorrect for the right reason, honest ones pass; bad output files fail cleanly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <tuple>
#include <unistd.h>

#include "rope2d/verify/judge/check.hpp"
#include "rope2d/verify/products/report_files.hpp"

using namespace rope2d;
using namespace rope2d::verify;
namespace fs = std::filesystem;

namespace {

class CheckPath : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::temp_directory_path() / ("rope2d_check_test_" + std::to_string(::getpid()))).string();
    std::vector<ProblemSpec> specs;
    for (auto [set, src, regime] : {std::tuple{"randn", AngleSource::randn, ref::Regime::randn},
                                    std::tuple{"layout", AngleSource::layout, ref::Regime::randn},
                                    std::tuple{"near_axis", AngleSource::regime, ref::Regime::near_axis},
                                    std::tuple{"cancellation", AngleSource::regime, ref::Regime::cancellation}}) {
      ProblemSpec s;
      s.set = set;
      s.source = src;
      s.regime = regime;
      s.seq_len = 300;
      s.seed = specs.size() + 5;
      specs.push_back(s);
    }
    ProblemSpec odd;
    odd.set = "odd";
    odd.elements = 1001;
    odd.seed = 9;
    specs.push_back(odd);
    write_golden(dir_, specs, "test");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // Outputs of `kernel` for every problem of the set.
  template <class F>
  static SafeTensors outputs(F kernel) {
    const GoldenSet set = open_golden(dir_);
    SafeTensors st;
    for (const auto& f : set.files) {
      const GoldenProblem g = load_golden(set, f);
      std::vector<float> out(g.problem.n());
      for (std::int64_t i = 0; i < g.problem.n(); ++i) out[i] = kernel(g.problem.element(i), i, g.problem.n());
      st.tensors[f.problem] = make_tensor("F32", {g.problem.n()}, out);
    }
    return st;
  }
  static Report judge(const SafeTensors& st, Tier gate = Tier::float32_bound) { return check_outputs(open_golden(dir_), st, gate); }

  static std::string dir_;
};

std::string CheckPath::dir_;

float honest(const ref::Element& e, std::int64_t, std::int64_t) {
  const float s = std::sin(e.t), c = std::cos(e.t);
  return -static_cast<float>(e.gc) * s + static_cast<float>(e.gs) * c;
}

float round16(float x) { return static_cast<float>(ref::round_to(ref::Dtype::fp16, x)); }

}  // namespace

TEST_F(CheckPath, HonestFloat32Passes) {
  const Report r = judge(outputs(honest));
  EXPECT_EQ(r.verdict(), Disposition::passed) << summary(r);
  EXPECT_EQ(r.exit_code(), 0);
}

TEST_F(CheckPath, Float16SinCosIsIncorrectButPassesTheBf16NoiseTier) {
  auto k = [](const ref::Element& e, std::int64_t, std::int64_t) {
    return -static_cast<float>(e.gc) * round16(std::sin(e.t)) + static_cast<float>(e.gs) * round16(std::cos(e.t));
  };
  const Report bound = judge(outputs(k));
  EXPECT_EQ(bound.verdict(), Disposition::incorrect);
  EXPECT_EQ(bound.exit_code(), 1);
  EXPECT_EQ(judge(outputs(k), Tier::bf16_noise).verdict(), Disposition::passed);
}

TEST_F(CheckPath, SignErrorIsIncorrectEverywhere) {
  auto k = [](const ref::Element& e, std::int64_t, std::int64_t) {
    return static_cast<float>(e.gc) * std::sin(e.t) + static_cast<float>(e.gs) * std::cos(e.t);
  };
  for (Tier t : all_tiers) EXPECT_EQ(judge(outputs(k), t).verdict(), Disposition::incorrect) << name(t);
}

TEST_F(CheckPath, SkippedTailIsCaught) {
  auto k = [](const ref::Element& e, std::int64_t i, std::int64_t n) {
    return i >= n / 8 * 8 ? 0.0f : honest(e, i, n);
  };
  const Report r = judge(outputs(k));
  EXPECT_EQ(r.verdict(), Disposition::incorrect);
  bool odd_failed = false;
  for (const auto& x : r.results)
    if (x.set == "odd") odd_failed = !x.passed(Tier::float32_bound);
  EXPECT_TRUE(odd_failed);
}

TEST_F(CheckPath, AllZeroAndNanOutputsFail) {
  const Report zeros = judge(outputs([](const ref::Element&, std::int64_t, std::int64_t) { return 0.0f; }));
  EXPECT_EQ(zeros.verdict(), Disposition::incorrect);
  EXPECT_TRUE(zeros.results[0].metrics.all_zero);
  const Report nans = judge(outputs([](const ref::Element&, std::int64_t, std::int64_t) { return NAN; }));
  EXPECT_EQ(nans.verdict(), Disposition::incorrect);
  EXPECT_GT(nans.results[0].metrics.nonfinite_mismatch, 0);
}

TEST_F(CheckPath, MissingOrMisshapenOutputsFailToRun) {
  SafeTensors st = outputs(honest);
  st.tensors.erase(st.tensors.begin());
  EXPECT_EQ(judge(st).verdict(), Disposition::failed);
  SafeTensors wrong = outputs(honest);
  wrong.tensors.begin()->second.shape = {1};
  wrong.tensors.begin()->second.data.resize(4);
  const Report r = judge(wrong);
  EXPECT_EQ(r.verdict(), Disposition::failed);
  EXPECT_EQ(r.exit_code(), 3);
}

TEST_F(CheckPath, GoldenSetMatchesTheReference) {
  EXPECT_EQ(check_golden_against_reference(open_golden(dir_)).verdict(), Disposition::passed);
}

TEST_F(CheckPath, DamagedGoldenFileIsRejectedByChecksum) {
  const std::string copy = dir_ + "_damaged";
  fs::copy(dir_, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const auto victim = fs::path(copy) / open_golden(dir_).files[0].file;
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x55');
  }
  try {
    open_golden(copy);
    ADD_FAILURE() << "damaged set accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sha256"), std::string::npos) << e.what();
  }
  fs::remove_all(copy);
}

TEST_F(CheckPath, ReportsAreWrittenInEveryFormat) {
  const std::string out = dir_ + "_report";
  write_report(out, judge(outputs(honest)));
  for (const char* f : {"report.md", "report.json", "junit.xml", "error_histogram.svg", "error_by_angle.svg"})
    EXPECT_GT(fs::file_size(fs::path(out) / f), 100u) << f;
  fs::remove_all(out);
}

// A passing report still shows each set's worst element in hex floats; a failing one lists
// its failures as FAIL lines as well.
TEST_F(CheckPath, MarkdownShowsTheWorstElementOfEverySet) {
  auto markdown = [](const Report& r) {
    const std::string out = dir_ + "_md";
    write_report(out, r);
    std::ifstream in(fs::path(out) / "report.md");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove_all(out);
    return text;
  };
  const Report good = judge(outputs(honest));
  const std::string md = markdown(good);
  const std::string hex = "-?0x[0-9a-f.]+p[-+][0-9]+";
  for (const auto& x : good.results) {
    const std::regex line("\nworst " + std::regex_replace(x.name, std::regex("[.+*?^$()\\[\\]{}|\\\\]"), "\\$&") +
                          " i=[0-9]+ gc=" + hex + " gs=" + hex + " t=" + hex + " ref=" + hex + " got=" + hex + " err=");
    EXPECT_TRUE(std::regex_search(md, line)) << x.name;
  }
  EXPECT_EQ(md.find("\nFAIL "), std::string::npos);
  const std::string bad = markdown(judge(outputs([](const ref::Element& e, std::int64_t, std::int64_t) {
    return static_cast<float>(e.gc) * std::sin(e.t) + static_cast<float>(e.gs) * std::cos(e.t);
  })));
  EXPECT_NE(bad.find("\nFAIL "), std::string::npos);
}

// A kernel whose sin/cos take a subnormal angle as zero (as Triton's do): accepted by default
// with the mode stated, incorrect when IEEE subnormal behaviour is demanded.
TEST(CheckSubnormals, FlushedAngleFailsOnlyWithIeeeSubnormals) {
  const std::string dir = (fs::temp_directory_path() / ("rope2d_check_ieee_" + std::to_string(::getpid()))).string();
  write_golden(dir, {{.set = "subnormal", .source = AngleSource::regime, .regime = ref::Regime::subnormal, .seq_len = 300, .seed = 11}},
               "test");
  const GoldenSet set = open_golden(dir);
  const GoldenProblem g = load_golden(set, set.files.at(0));
  std::vector<float> out(g.problem.n());
  for (std::int64_t i = 0; i < g.problem.n(); ++i) {
    const ref::Element e = g.problem.element(i);
    const double t = std::fpclassify(e.t) == FP_SUBNORMAL ? 0.0 : e.t;
    out[i] = static_cast<float>(-e.gc * std::sin(t) + e.gs * std::cos(t));  // one rounding, in double
  }
  SafeTensors st;
  st.tensors[set.files[0].problem] = make_tensor("F32", {g.problem.n()}, out);
  const Report lenient = check_outputs(set, st, Tier::float32_bound);
  EXPECT_EQ(lenient.verdict(), Disposition::passed) << summary(lenient);
  EXPECT_EQ(lenient.results.at(0).metrics.subnormal_mode().rfind("flushes angle", 0), 0u) << lenient.results[0].metrics.subnormal_mode();
  const Report ieee = check_outputs(set, st, Tier::float32_bound, {}, Subnormals::ieee);
  EXPECT_EQ(ieee.verdict(), Disposition::incorrect) << summary(ieee);
  EXPECT_GT(ieee.results.at(0).metrics.over[static_cast<int>(Tier::float32_bound)], 0);
  fs::remove_all(dir);
}
