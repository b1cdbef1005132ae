// The angle sweep without a GPU: the range split into shards, the loop over pairs and chunks
// through the host twin against compare() on the same angles, the time box and where it
// says to resume, and the worst-case list read back by the reference's reader and as a sweep.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gpu_check_compare.hpp"
#include "codec/worst_list.hpp"
#include "products/sweep/sweep.hpp"
#include "products/sweep/sweep_worst.hpp"

using namespace rope2d::verify;

TEST(Sweep, SplitRangeCoversTheRangeInNearEqualConsecutiveShards) {
  for (auto [lo, hi] : {std::pair<std::uint64_t, std::uint64_t>{0, all_patterns}, {5, 6}, {0x3f800000, 0x46800000}, {7, 7}})
    for (int n : {1, 2, 3, 7, 64, 1000}) {
      std::uint64_t at = lo, smallest = ~0ull, largest = 0;
      for (int i = 0; i < n; ++i) {
        const auto [a, b] = split_range(lo, hi, i, n);
        EXPECT_EQ(a, at);
        EXPECT_LE(a, b);
        smallest = std::min(smallest, b - a);
        largest = std::max(largest, b - a);
        at = b;
      }
      EXPECT_EQ(at, hi);
      EXPECT_LE(largest - smallest, 1u) << n << " shards";
    }
  EXPECT_THROW(split_range(0, 10, 2, 2), std::invalid_argument);
  EXPECT_THROW(split_range(0, 10, -1, 2), std::invalid_argument);
  EXPECT_THROW(split_range(0, all_patterns + 1, 0, 2), std::invalid_argument);
  EXPECT_THROW(split_range(9, 3, 0, 2), std::invalid_argument);
}

TEST(Sweep, HostSweepEqualsTheCpuJudgeOnTheSameAngles) {
  // Around 1.0, the largest subnormals and the top of the range into Inf and NaN.
  for (auto [lo, hi] : {std::pair<std::uint64_t, std::uint64_t>{0x3f7f0000, 0x3f810000}, {0x007f8000, 0x00808000},
                        {0x7f7f8000, 0x7f808000}, {0xff7f8000, 0xff808000}}) {
    SweepOptions o;
    o.lo = lo;
    o.hi = hi;
    const SweepResult r = run_sweep(o, host_sweep_chunk, 1 << 14);
    ASSERT_TRUE(r.complete);
    ASSERT_EQ(r.pairs.size(), o.grads.size());
    for (const SweepPair& sp : r.pairs) {
      // The same angles as one problem, judged by compare().
      const float gc = static_cast<float>(sp.grads.gc), gs = static_cast<float>(sp.grads.gs);
      const Problem p = compare_test::sweep_problem(lo, hi, gc, gs);
      const std::int64_t n = p.n();
      std::vector<float> out(n);
      for (std::int64_t i = 0; i < n; ++i) out[i] = -gc * std::sin(p.theta[i]) + gs * std::cos(p.theta[i]);
      Metrics want = compare(p, compute_expected(p), out.data(), Tier::float32_bound, 10);
      for (ElementReport& f : want.failures) f.index += static_cast<std::int64_t>(lo);
      compare_test::expect_same_metrics(want, sp.metrics, sp.grads.name);
      EXPECT_EQ(sp.angles, n);
      ASSERT_EQ(sp.worst.empty(), !want.worst.has_value()) << sp.grads.name;
      if (want.worst) {
        EXPECT_TRUE(compare_test::close(sp.worst.front().scaled_error, want.worst->scaled_error)) << sp.grads.name;
      }
    }
  }
}

TEST(Sweep, TheTimeBoxSaysWhereToResume) {
  SweepOptions o;
  o.lo = 0x3f800000;
  o.hi = o.lo + (1 << 16);
  o.budget_s = 1e-9;
  const SweepResult r = run_sweep(o, host_sweep_chunk, 1 << 12);
  EXPECT_FALSE(r.complete);
  // One chunk done for every pair, then the box closed: [lo, next) is done for all of them.
  EXPECT_EQ(r.next, o.lo + (1 << 12));
  EXPECT_EQ(r.angles, static_cast<std::int64_t>(o.grads.size()) << 12);
  ASSERT_EQ(r.pairs.size(), o.grads.size());
  for (const SweepPair& p : r.pairs) {
    EXPECT_FALSE(p.complete);
    EXPECT_EQ(p.angles, 1 << 12);
  }
  EXPECT_EQ(r.metrics.count, r.angles);
}

TEST(Sweep, QuickSamplesEveryShardOfTheRange) {
  SweepOptions o;
  o.lo = 0;
  o.hi = all_patterns;
  o.quick = true;
  o.grads = {{"ordinary", 0.75, -1.25}};
  const SweepResult r = run_sweep(o, host_sweep_chunk, 1 << 16);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.angles, 16 << 16);
  EXPECT_EQ(r.metrics.count, 16 << 16);
  // Negative and huge angles were met: errors recorded in the top binades.
  EXPECT_GT(r.metrics.max_by_angle[25], 0);
}

TEST(Sweep, WorstListReadsBackAsCases) {
  SweepOptions o;
  o.lo = 0x44800000;  // [1024, 1056)
  o.hi = 0x44840000;
  const SweepResult r = run_sweep(o, host_sweep_chunk, 1 << 14);
  const std::string text = sweep_worst_list(r, {" made by: test", " device: host"});
  const std::string path = (std::filesystem::temp_directory_path() / "rope2d_sweep_worst_test.txt").string();
  std::ofstream(path) << text;
  const rope2d::ref::WorstList list = rope2d::verify::read_worst_list(path, 3);
  std::filesystem::remove(path);
  std::size_t cases = 0;
  for (const SweepPair& p : r.pairs) cases += p.worst.size();
  ASSERT_EQ(list.cases.size(), cases);
  EXPECT_GT(cases, o.grads.size());
  EXPECT_EQ(list.header.front(), " made by: test");
  // The first case is the first pair's worst element, which has that pair's max error.
  const SweepPair& first = r.pairs.front();
  EXPECT_EQ(list.cases[0][2], first.worst.front().in.t);
  EXPECT_EQ(first.worst.front().scaled_error, first.metrics.max_scaled);
}

// The host sweep of [1024, 1056) and its worst-case list.
struct SmallSweep {
  SweepOptions o;
  SweepResult r;
  std::string text;
};
SmallSweep small_sweep() {
  SmallSweep s;
  s.o.lo = 0x44800000;
  s.o.hi = 0x44840000;
  s.r = run_sweep(s.o, host_sweep_chunk, 1 << 14);
  s.text = sweep_worst_list(s.r, sweep_worst_header("test", s.r, "host"));
  return s;
}

TEST(Sweep, WorstListReadsBackAsItsSweep) {
  const auto [o, r, text] = small_sweep();
  const std::string path = (std::filesystem::temp_directory_path() / "rope2d_sweep_worst_back.txt").string();
  std::ofstream(path) << text;
  const SweepWorstList back = read_sweep_worst(path, o.lo, o.hi, o.grads, o.worst_per_pair);
  std::filesystem::remove(path);
  EXPECT_EQ(back.device, "host");
  EXPECT_EQ(back.sweep.angles, r.angles);
  EXPECT_TRUE(back.sweep.complete);
  ASSERT_EQ(back.sweep.pairs.size(), r.pairs.size());
  for (std::size_t k = 0; k < r.pairs.size(); ++k) {
    const SweepPair &a = r.pairs[k], &b = back.sweep.pairs[k];
    ASSERT_EQ(b.worst.size(), a.worst.size()) << a.grads.name;
    for (std::size_t i = 0; i < a.worst.size(); ++i) {
      EXPECT_EQ(b.worst[i].index, a.worst[i].index);
      EXPECT_EQ(b.worst[i].in.t, a.worst[i].in.t);
      EXPECT_EQ(b.worst[i].scaled_error, a.worst[i].scaled_error);  // exactly: the join orders by it
    }
  }
  // Written again from what was read, the list is the same text.
  EXPECT_EQ(sweep_worst_list(back.sweep, sweep_worst_header("test", back.sweep, back.device)), text);
}

TEST(Sweep, WorstListRefusesCaseErrorsNoSweepWrites) {
  // A case's error that is not a finite number, or above its pair's printed max error, is no
  // error a sweep writes: refused naming the file and line, not joined into a night's list.
  const auto [o, r, text] = small_sweep();
  const SweepPair& first = r.pairs.front();
  ASSERT_FALSE(first.worst.empty());
  const std::string note = fmt::format(" # {}", first.worst.front().scaled_error);  // the first case's note
  const std::size_t at = text.find(note);
  ASSERT_NE(at, std::string::npos);
  const std::string path = (std::filesystem::temp_directory_path() / "rope2d_sweep_worst_errors.txt").string();
  for (const std::string& bad : {std::string("nan"), std::string("inf"), std::string("-inf"),
                                 fmt::format("{}", first.metrics.max_scaled * 1.01 + 1e-3)}) {
    std::string t = text;
    t.replace(at, note.size(), " # " + bad);
    std::ofstream(path) << t;
    try {
      read_sweep_worst(path, o.lo, o.hi, o.grads, o.worst_per_pair);
      ADD_FAILURE() << "accepted a case error of " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(path);
}

namespace {

// A host sweep chunk of a made-up kernel out = f(t, gc, gs), judged by the host twin.
SweepChunk host_kernel(float (*f)(float t, float gc, float gs)) {
  return [f](std::uint64_t first, std::int64_t n, float gc, float gs, const CheckOptions& co) {
    std::vector<float> theta(n), out(n), gcs(n, gc), gss(n, gs);
    for (std::int64_t i = 0; i < n; ++i) {
      theta[i] = std::bit_cast<float>(static_cast<std::uint32_t>(first + static_cast<std::uint64_t>(i)));
      out[i] = f(theta[i], gc, gs);
    }
    CheckOptions c = co;
    c.index_base = static_cast<std::int64_t>(first);
    return host_check(gcs.data(), gss.data(), theta.data(), out.data(), n, rope2d::ref::Dtype::fp32, c);
  };
}

}  // namespace

TEST(Sweep, AKernelWrongAtNonFiniteAnglesLeavesTheListReadable) {
  // Inf and the NaNs [0x7f800000, 0x7f800400) and a few finite angles below; the kernel
  // returns 1 there instead of NaN: failures counted, the worst element a non-finite angle,
  // the list of finite angles only and readable.
  SweepOptions o;
  o.lo = 0x7f7ffc00;
  o.hi = 0x7f800400;
  const SweepChunk wrong = host_kernel([](float t, float gc, float gs) {
    return std::isfinite(t) ? -gc * std::sin(t) + gs * std::cos(t) : 1.0f;
  });
  const SweepResult r = run_sweep(o, wrong, 1 << 8);
  ASSERT_GT(r.metrics.over[static_cast<int>(Tier::float32_bound)], 0);
  ASSERT_TRUE(r.metrics.worst);
  EXPECT_FALSE(std::isfinite(r.metrics.worst->in.t));
  std::size_t listed = 0;
  for (const SweepPair& p : r.pairs)
    for (const ElementReport& e : p.worst) {
      EXPECT_TRUE(std::isfinite(e.in.t)) << p.grads.name;
      ++listed;
    }
  EXPECT_GT(listed, 0u);
  const std::string path = (std::filesystem::temp_directory_path() / "rope2d_sweep_worst_nonfinite.txt").string();
  std::ofstream(path) << sweep_worst_list(r, sweep_worst_header("test", r, "host"));
  EXPECT_NO_THROW(read_sweep_worst(path, o.lo, o.hi, o.grads, o.worst_per_pair));
  std::filesystem::remove(path);
}

TEST(Sweep, TheListTakesAChunksFiniteWorstWhenItsWorstIsAtANaNAngle) {
  // [0x7fffff00, 0x80000100): the last 256 NaNs, then -0 and negative subnormal angles, one
  // chunk. The kernel returns 1 at the NaNs and NaN at the subnormal angles: both handed back,
  // the chunk's worst at a NaN angle (the lower index); the list still holds the worst of the
  // subnormal angles' failures.
  SweepOptions o;
  o.lo = 0x7fffff00;
  o.hi = 0x80000100;
  const SweepChunk wrong = host_kernel([](float t, float gc, float gs) {
    return std::isnan(t) ? 1.0f : t != 0 ? NAN : -gc * std::sin(t) + gs * std::cos(t);
  });
  const SweepResult r = run_sweep(o, wrong, 1 << 10);
  ASSERT_TRUE(r.metrics.worst);
  EXPECT_TRUE(std::isnan(r.metrics.worst->in.t));
  for (const SweepPair& p : r.pairs) {
    ASSERT_FALSE(p.worst.empty()) << p.grads.name;
    for (const ElementReport& e : p.worst) {
      EXPECT_TRUE(std::isfinite(e.in.t) && e.in.t != 0) << p.grads.name;
      EXPECT_TRUE(std::isnan(e.got)) << p.grads.name;
    }
  }
}

TEST(Sweep, BadRangesAreRefused) {
  SweepOptions o;
  o.lo = 10;
  o.hi = 10;
  EXPECT_THROW(run_sweep(o, host_sweep_chunk, 1 << 12), std::invalid_argument);
  o.hi = all_patterns + 1;
  EXPECT_THROW(run_sweep(o, host_sweep_chunk, 1 << 12), std::invalid_argument);
}
