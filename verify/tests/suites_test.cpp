// Unit tests of the generated coverage: the size sweep holds every residue and boundary it
// promises, placement every offset combination, the special set every value pair, and seeds
// depend on a set's name only.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <cstring>
#include <set>

#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/regimes.hpp"
#include "harness/testbed/huge.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/judge/worst.hpp"

using namespace rope2d;
using namespace rope2d::verify;

namespace {

std::vector<ProblemSpec> suite(bool quick) {
  SuiteOptions o;
  o.quick = quick;
  o.grad_dtypes = {ref::Dtype::bf16, ref::Dtype::fp16, ref::Dtype::fp32};
  return verification_suite(o);
}

std::set<std::int64_t> sizes(const std::vector<ProblemSpec>& v, const std::string& set, ref::Dtype d) {
  std::set<std::int64_t> n;
  for (const auto& p : v)
    if (p.set == set && p.grad_dtype == d) n.insert(p.n());
  return n;
}

}  // namespace

TEST(Suites, NamesAreUniqueAndEveryDtypeIsCovered) {
  for (bool quick : {false, true}) {
    const auto v = suite(quick);
    std::set<std::string> names;
    std::map<ref::Dtype, int> per_dtype;
    for (const auto& p : v) {
      EXPECT_TRUE(names.insert(p.name()).second) << p.name();
      ++per_dtype[p.grad_dtype];
    }
    EXPECT_EQ(per_dtype.size(), 3u);
  }
}

// The named suites are one table: each name once, each one's problems named uniquely for every
// dtype asked for, and a name outside the table refused naming the option, the names and it.
TEST(Suites, NamedSuitesAreOneTable) {
  std::set<std::string> names;
  SuiteOptions o;
  o.quick = true;
  o.grad_dtypes = {ref::Dtype::bf16, ref::Dtype::fp32};
  for (const NamedSuite& n : named_suites()) {
    EXPECT_TRUE(names.insert(std::string(n.name)).second) << n.name;
    EXPECT_EQ(&suite_named(n.name, "--suite"), &n);
    const std::vector<ProblemSpec> v = n.make(o);
    std::set<std::string> problems;
    std::set<ref::Dtype> dtypes;
    for (const ProblemSpec& p : v) {
      EXPECT_TRUE(problems.insert(p.name()).second) << n.name << ": " << p.name();
      dtypes.insert(p.grad_dtype);
    }
    EXPECT_EQ(dtypes.size(), 2u) << n.name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"smoke", "benchmark", "verification"}));
  EXPECT_EQ(suite_names(), "smoke, benchmark or verification");
  try {
    suite_named("smok", "--suite");
    ADD_FAILURE() << "an unknown suite was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--suite: expected smoke, benchmark or verification, found 'smok'");
  }
}

TEST(Suites, SizeSweepHoldsEveryResidueAndBoundary) {
  const auto n = sizes(suite(false), "odd", ref::Dtype::bf16);
  EXPECT_TRUE(n.count(0));
  for (std::int64_t k = 1; k <= 80; ++k) EXPECT_TRUE(n.count(k)) << k;
  std::set<std::int64_t> small, large;
  for (std::int64_t x : n) (x < 4096 ? small : large).insert(x % 256);
  EXPECT_EQ(small.size(), 256u);  // every residue mod 256 (so mod 2, 4, ..., 128 too) at small n
  std::set<std::int64_t> large16;
  for (std::int64_t x : n)
    if (x >= (1 << 20)) large16.insert(x % 16);
  EXPECT_EQ(large16.size(), 16u);
  for (std::int64_t unit : {128, 256, 1024, 8192})
    for (std::int64_t d = -3; d <= 3; ++d) EXPECT_TRUE(n.count(unit + d)) << unit << d;
  EXPECT_TRUE(n.count((std::int64_t{1} << 24) + 1));
  EXPECT_TRUE(n.count(65535 * 128 + 1));
}

// --quick keeps the sweep's kinds (empty, sub-vector, every tail mod 16, each launch unit +-1, a
// large n) with few distinct sizes, and its other sets reuse them or the workloads' shapes: a
// kernel compiled per size (a Triton tl.constexpr n) compiles about 50 times, not hundreds.
TEST(Suites, QuickCoversTheSizeKindsWithFewDistinctShapes) {
  SuiteOptions o;
  o.quick = true;
  o.grad_dtypes = {ref::Dtype::bf16};
  o.worst_dir = ROPE2D_TEST_DIR "/../../reference/worst";
  const auto v = verification_suite(o);
  const auto n = sizes(v, "odd", ref::Dtype::bf16);
  std::set<std::int64_t> residues;
  for (std::int64_t x : n) residues.insert(x % 16);
  EXPECT_EQ(residues.size(), 16u);
  for (std::int64_t x : {0, 1, 7, 8, 9}) EXPECT_TRUE(n.count(x)) << x;
  for (std::int64_t unit : {128, 256, 512, 1024, 2048, 4096, 8192, 1 << 18}) {  // each launch unit overhung or short
    bool near = false;
    for (std::int64_t d = -6; d <= 6; ++d) near |= d != 0 && n.count(unit + d) > 0;
    EXPECT_TRUE(near) << unit;
  }
  for (std::int64_t d : {-1, 1}) EXPECT_TRUE(n.count((1 << 18) + d)) << d;
  std::set<std::int64_t> shapes;
  std::set<std::string> sets;
  for (const auto& p : v) {
    shapes.insert(p.n());
    sets.insert(p.set);
  }
  for (const char* set : {"randn", "layout", "long", "special", "odd", "place", "flush", "worst", "near_overflow"})
    EXPECT_TRUE(sets.count(set)) << set;
  // Each distinct element count is a compilation for a JIT kernel specialised on n: the
  // constexpr-size Triton solution's --quick must stay under 30 s on an H200.
  EXPECT_LE(shapes.size(), 42u) << "distinct element counts of --quick";
  for (const auto& p : v)  // placement and flush ride on sizes judged anyway
    if (p.set == "place" || p.set == "flush") {
      EXPECT_TRUE(p.n() == 67 || n.count(p.n())) << p.name();
    }
}

TEST(Suites, PlacementHoldsAllOffsetCombinationsAndEachPointerAlone) {
  for (bool quick : {false, true}) {
    std::set<std::array<int, 4>> full, alone;
    bool flush = false;
    for (const auto& p : suite(quick)) {
      if (p.grad_dtype != ref::Dtype::fp16) continue;
      if (p.set == "place" && p.n() == 67) full.insert(p.offset);
      flush |= p.set == "flush" && p.flush_end;
    }
    EXPECT_TRUE(flush);
    for (int k = 0; k < 4; ++k)
      for (int o = 1; o < 4; ++o) {
        std::array<int, 4> a{};
        a[k] = o;
        EXPECT_TRUE(full.count(a)) << k << " " << o;
      }
    EXPECT_EQ(full.size(), 16u);  // fp16 is not the first dtype: none, each pointer alone, all four together
  }
  std::set<std::array<int, 4>> bf16;
  for (const auto& p : suite(false))
    if (p.set == "place" && p.n() == 67 && p.grad_dtype == ref::Dtype::bf16) bf16.insert(p.offset);
  EXPECT_EQ(bf16.size(), 256u);
}

TEST(Suites, SpecialSetCrossesEveryGradPairWithEveryAngle) {
  ProblemSpec s;
  s.set = "special";
  s.source = AngleSource::special;
  s.grad_dtype = ref::Dtype::fp16;
  const auto angles = ref::special_angles();
  const auto grads = ref::special_grads(s.grad_dtype);
  s.elements = static_cast<std::int64_t>(angles.size() * grads.size() * grads.size());
  s.seed = 3;
  const Problem p = make_problem(s);
  std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>> seen;
  auto key = [](double x) { return std::isnan(x) ? ~0ull : std::bit_cast<std::uint64_t>(x); };
  int zero_with_nonfinite_angle = 0;
  for (std::int64_t i = 0; i < p.n(); ++i) {
    const ref::Element e = p.element(i);
    seen.insert({key(e.gc), key(e.gs), std::isnan(e.t) ? ~0u : std::bit_cast<std::uint32_t>(e.t)});
    zero_with_nonfinite_angle += e.gc == 0.0 && e.gs == 0.0 && !std::isfinite(e.t);
  }
  // Ordinary grads are drawn afresh, so there are at least as many distinct triples as cells.
  EXPECT_GE(seen.size(), static_cast<std::size_t>(p.n()) * 9 / 10);
  EXPECT_EQ(zero_with_nonfinite_angle, 4 * 3);  // (+-0, +-0) x (+Inf, -Inf, NaN)
}

TEST(Suites, SeedsComeFromNamesOnly) {
  SuiteOptions one;
  one.grad_dtypes = {ref::Dtype::bf16};
  SuiteOptions two = one;
  two.grad_dtypes = {ref::Dtype::fp32, ref::Dtype::bf16};
  std::map<std::string, std::uint64_t> a;
  for (const auto& p : verification_suite(one)) a[p.name()] = p.seed;
  int same = 0;
  for (const auto& p : verification_suite(two))
    if (auto it = a.find(p.name()); it != a.end()) same += it->second == p.seed ? 1 : -1000;
  EXPECT_GT(same, 30);  // the names both runs share (the second dtype's thinner sweep overlaps the first's)
  EXPECT_NE(name_seed(1, "randn/bf16/2x773"), name_seed(2, "randn/bf16/2x773"));
  EXPECT_NE(name_seed(1, "randn/bf16/2x773"), name_seed(1, "randn/bf16/2x774"));
}

TEST(Suites, OffsetsRoundTripThroughText) {
  ProblemSpec s;
  s.offset = {1, 0, 3, 2};
  EXPECT_EQ(s.offsets_text(), "1,0,3,2");
  EXPECT_EQ(ProblemSpec::parse_offsets("1,0,3,2"), s.offset);
  EXPECT_EQ(ProblemSpec::parse_offsets("2"), (std::array<int, 4>{2, 2, 2, 2}));
  for (const char* bad : {"", "1,2", "1,2,3,4,5", "a", "-1", "1,,2,3"}) EXPECT_THROW(ProblemSpec::parse_offsets(bad), std::invalid_argument) << bad;
}

TEST(Huge, SampleHoldsEveryElementNearTwoToThe31AndTheEnd) {
  SuiteOptions o;
  const auto specs = huge_suite(o);
  ASSERT_EQ(specs.size(), 1u);
  const ProblemSpec& s = specs[0];
  EXPECT_GT(s.n(), std::int64_t{1} << 31);
  const auto idx = judged_indices(s);
  EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end()));
  EXPECT_EQ(std::adjacent_find(idx.begin(), idx.end()), idx.end());
  const std::set<std::int64_t> all(idx.begin(), idx.end());
  for (std::int64_t d = -4096; d < 4096; ++d) EXPECT_TRUE(all.count((std::int64_t{1} << 31) + d)) << d;
  for (std::int64_t i = s.n() - 4096; i < s.n(); ++i) ASSERT_TRUE(all.count(i)) << i;
  EXPECT_EQ(idx.back(), s.n() - 1);
  EXPECT_GT(idx.size(), std::size_t{1} << 19);
}

TEST(Huge, SampleOfCopiesTheSampledElements) {
  ProblemSpec s;
  s.set = "odd";
  s.elements = 5000;
  s.grad_dtype = ref::Dtype::fp16;
  s.seed = 11;
  const Problem p = make_problem(s);
  const std::vector<std::int64_t> idx = {0, 17, 4095, 4999};
  const Problem q = sample_of(p, idx);
  ASSERT_EQ(q.n(), 4);
  for (std::size_t k = 0; k < idx.size(); ++k) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(q.theta[k]), std::bit_cast<std::uint32_t>(p.theta[idx[k]]));
    EXPECT_EQ(q.gc_at(k), p.gc_at(idx[k]));
    EXPECT_EQ(q.gs_at(k), p.gs_at(idx[k]));
  }
}

// The worst-case lists are one "worst" set per dtype when their folder is given, and the
// near-overflow regime is one of the regime sets of every dtype.
TEST(Suites, WorstSetAndNearOverflowRegime) {
  SuiteOptions o;
  o.quick = true;
  o.grad_dtypes = {ref::Dtype::bf16, ref::Dtype::fp16};
  auto count = [](const std::vector<ProblemSpec>& v, const std::string& set) {
    return std::count_if(v.begin(), v.end(), [&](const ProblemSpec& p) { return p.set == set; });
  };
  EXPECT_EQ(count(verification_suite(o), "worst"), 0);
  o.worst_dir = ROPE2D_TEST_DIR "/../../reference/worst";
  const auto v = verification_suite(o);
  EXPECT_EQ(count(v, "worst"), 2);
  for (const auto& p : v)
    if (p.set == "worst") {
      EXPECT_EQ(p.n(), worst_problem(o.worst_dir, p.grad_dtype).n()) << p.name();
      EXPECT_GT(p.n(), 0) << p.name();
    }
  EXPECT_EQ(count(v, "near_overflow"), 2);
  for (const auto& p : v)
    if (p.set == "near_overflow") {
      EXPECT_EQ(p.regime, ref::Regime::near_overflow);
    }
  o.worst_dir = "/nonexistent/worst";
  EXPECT_THROW(verification_suite(o), std::invalid_argument);
}

// make_problem forms a layout problem's angles per element in its parallel loop: they are
// ref::angles' of the same layout bit for bit, in fresh and in reused (larger) buffers.
TEST(Problems, LayoutAnglesAreTheReferenceLayoutsAngles) {
  ProblemSpec big;
  big.set = "odd";
  big.elements = 1 << 20;  // larger than either layout problem below
  Problem reused = make_problem(big);
  for (const auto& [batch, seq] : std::vector<std::pair<int, std::int64_t>>{{1, 5000}, {3, 777}}) {
    ProblemSpec s;
    s.set = "layout";
    s.source = AngleSource::layout;
    s.batch = batch;
    s.seq_len = seq;
    s.seed = 77 + batch;
    const std::vector<float> want =
        ref::angles(ref::random_layout(s.seed, {.batch = batch, .seq_len = seq, .max_image_side = 128}));
    make_problem(s, reused);
    for (const Problem& p : {make_problem(s), reused}) {
      ASSERT_EQ(p.theta.size(), want.size());
      EXPECT_EQ(std::memcmp(p.theta.data(), want.data(), want.size() * 4), 0) << batch << "x" << seq;
      EXPECT_EQ(p.positions.size(), 2 * static_cast<std::size_t>(batch * seq));
    }
  }
}
