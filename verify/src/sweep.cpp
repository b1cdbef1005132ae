// The nightly angle sweep (sweep.hpp): chunks of consecutive float32 angles as cases of the
// judge, without the stream, repeat and input checks (the sweep is about the arithmetic).
#include "rope2d/verify/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "rope2d/verify/device_judge.hpp"

namespace rope2d::verify {

namespace {

constexpr std::int64_t chunk = std::int64_t{1} << 25;

// n angles from the float with bits `first`, grads (gc, gs) in fp32.
Case sweep_case(std::int64_t first, std::int64_t n, float gc, float gs) {
  Case c;
  Problem& p = c.problem;
  p.spec.set = "sweep";
  p.spec.grad_dtype = ref::Dtype::fp32;
  p.spec.elements = n;
  p.theta.resize(n);
  p.gc.resize(n * 4);
  p.gs.resize(n * 4);
  parallel_chunks(n, 1 << 20, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      p.theta[i] = std::bit_cast<float>(static_cast<std::uint32_t>(first + i));
      std::memcpy(&p.gc[i * 4], &gc, 4);
      std::memcpy(&p.gs[i * 4], &gs, 4);
    }
  });
  c.expected = compute_expected(p);
  return c;
}

}  // namespace

SweepResult sweep_angles(BackwardFn fn, const SweepOptions& o, const SweepProgress& progress) {
  SweepResult r;
  r.ran = true;
  const auto t0 = std::chrono::steady_clock::now();
  Testbed bed;
  Judge judge(Tier::float32_bound, 1);
  const Entry entry{"", [&](const Problem& p, int) { return call_result(bed.run(fn, p, {false, false, false})); }, {}};
  const std::uint32_t first = std::bit_cast<std::uint32_t>(o.from);
  const std::uint32_t last = std::bit_cast<std::uint32_t>(o.quick ? std::min(o.to, 4.0f) : o.to);
  const std::int64_t total = static_cast<std::int64_t>(last - first) * static_cast<std::int64_t>(o.grads.size());
  for (const auto& [gc, gs] : o.grads) {
    for (std::int64_t b = first; b < last; b += chunk) {
      const std::int64_t n = std::min<std::int64_t>(chunk, last - b);
      ProblemSpec spec;
      spec.set = "sweep";
      spec.grad_dtype = ref::Dtype::fp32;
      spec.elements = n;
      const SetResult s = judge.judge(spec, [&](int) { return sweep_case(b, n, static_cast<float>(gc), static_cast<float>(gs)); },
                                      {entry}).at(0);
      if (!s.ran()) throw std::runtime_error("sweep: " + s.error);
      r.metrics.merge(s.metrics, 10);
      r.angles += n;
      r.reached = std::bit_cast<float>(static_cast<std::uint32_t>(b + n - 1));
      if (progress) progress(r.angles, total, fmt::format("sweep gc={} gs={}: angles up to {}", gc, gs, r.reached));
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r.seconds > o.budget_s) return r;  // time box: the report says how far it got
    }
  }
  r.complete = true;
  return r;
}

}  // namespace rope2d::verify
