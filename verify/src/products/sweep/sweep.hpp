// The angle sweep: every float32 bit pattern in a half-open range [lo, hi) of 32-bit patterns
// (all 2^32 of them at most: negative, subnormal, huge, Inf and NaN included), for a few
// fixed grad pairs, run by a kernel in chunks and judged by the float32-bound tier against the
// certified reference, within a time box. On a GPU the angles are made on the device, the
// kernel runs there and the GPU comparison (gpu_check.hpp) judges each chunk; the elements it
// cannot settle go to the CPU judge. The same loop runs on the host over the host twin with a
// float32 evaluation (glibc's sinf/cosf) standing in for the kernel, to test the machinery
// where there is no GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harness/testbed/device.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/model/metrics.hpp"

namespace rope2d::verify {

inline constexpr std::uint64_t all_patterns = std::uint64_t{1} << 32;  // hi of the whole range

// The bit pattern of a float, as the range counts angles.
std::uint64_t pattern_of(float f);

// The GPU sweep judges [lo, hi) in chunks of this many patterns from lo and keeps the worst
// element of each GPU block of each chunk for its worst-case list: ranges split at multiples
// of it from lo see the same chunks, so their joined lists are the list of the whole range.
inline constexpr std::int64_t sweep_chunk_patterns = std::int64_t{1} << 26;

// Shard i of n (0 <= i < n) of [lo, hi): consecutive, near-equal, covering it exactly, split
// only at lo + a multiple of align (so some shards are empty when the range holds fewer than
// n of them).
std::pair<std::uint64_t, std::uint64_t> split_range(std::uint64_t lo, std::uint64_t hi, int i, int n, std::uint64_t align = 1);

struct SweepGrads {
  std::string name;
  double gc, gs;  // exact in fp32
};

// equal, cancelling (the two terms cancel at t = pi/4 + k pi, resp. -pi/4), one zero each
// way, a subnormal grad beside an ordinary one, and an ordinary pair.
std::vector<SweepGrads> default_sweep_grads();

struct SweepOptions {
  std::uint64_t lo = 0, hi = 0x46800000;  // [0, 16384) in float values by default
  std::vector<SweepGrads> grads = default_sweep_grads();
  double budget_s = 600;  // the time box: the result says how far it got
  bool quick = false;     // a sample: the first 2^16 patterns of each of the range's 16 shards
  std::size_t worst_per_pair = 16;  // elements kept for the worst-case list
};

struct SweepPair {
  SweepGrads grads;
  Metrics metrics;
  std::int64_t angles = 0;
  std::int64_t deferred = 0;            // judged on the CPU
  std::vector<ElementReport> worst;     // largest errors first (sweep_worst.hpp: its list)
  bool complete = false;
  double seconds = 0;                   // wall time of this pair
};

struct SweepResult {
  bool ran = false;
  std::string skipped;  // why not, when it did not run
  std::string backend;  // "gpu" or "host (float32 evaluation with glibc sinf/cosf)"
  std::uint64_t lo = 0, hi = 0;
  std::int64_t angles = 0;  // angle/grad pairs checked
  Metrics metrics;          // over every pair
  std::vector<SweepPair> pairs;
  float reached = 0;              // the last angle checked (the pattern before `next`)
  std::uint64_t next = 0;         // the first pattern of the last pair not checked (resume there)
  bool complete = false;          // every angle of every grad pair checked within the time box
  double seconds = 0;
};

// Called after each chunk: elements done of total, and what was checked.
using SweepProgress = std::function<void(std::int64_t done, std::int64_t total, const std::string& what)>;

// One chunk: the angles of patterns [first, first + n) with grads (gc, gs) in fp32, run and
// judged into a pass whose indices are the patterns themselves.
using SweepChunk = std::function<CheckPass(std::uint64_t first, std::int64_t n, float gc, float gs, const CheckOptions& o)>;

// The loop over pairs and chunks, the settling of each pass and the time box.
SweepResult run_sweep(const SweepOptions& o, const SweepChunk& chunk, std::int64_t chunk_patterns,
                      const SweepProgress& progress = {});

// The host chunk: glibc's float32 evaluation, judged by the host twin.
CheckPass host_sweep_chunk(std::uint64_t first, std::int64_t n, float gc, float gs, const CheckOptions& o);

// The GPU sweep of a kernel (needs CUDA; throws std::runtime_error when a call fails).
SweepResult sweep_angles(BackwardFn fn, const SweepOptions& o, const SweepProgress& progress = {});

// Largest errors first (a NaN error first of all; ties: the lowest index), one element per
// index, at most k: the order and length of a pair's worst elements.
void keep_worst_reports(std::vector<ElementReport>& v, std::size_t k);
// That order: a larger error first (a NaN error first of all), then the lower index.
bool worse_report(const ElementReport& a, const ElementReport& b);

}  // namespace rope2d::verify
