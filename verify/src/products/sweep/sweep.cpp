// The angle sweep's loop (sweep.hpp): grad pairs and chunks of consecutive bit patterns, each
// chunk's pass settled (the deferred elements judged on the CPU), merged, time-boxed, with the
// worst elements per pair (products/sweep/worst.cpp writes their list); and the host chunk that runs the
// loop without a GPU. Not through the judge (judge.hpp): a chunk is not a round of fresh
// inputs of one problem but a slice of one problem of 2^32 angles, judged on the GPU (settle)
// and merged unclosed, time-boxed, with worst lists; there is no Problem to hand an Entry.
#include "products/sweep/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>


namespace rope2d::verify {

std::uint64_t pattern_of(float f) { return std::bit_cast<std::uint32_t>(f); }

std::pair<std::uint64_t, std::uint64_t> split_range(std::uint64_t lo, std::uint64_t hi, int i, int n, std::uint64_t align) {
  if (n < 1 || i < 0 || i >= n) throw std::invalid_argument(fmt::format("split_range: shard {} of {}: expected 0 <= i < n", i, n));
  if (lo > hi || hi > all_patterns)
    throw std::invalid_argument(fmt::format("split_range: [{:#x}, {:#x}): expected lo <= hi <= 2^32", lo, hi));
  if (align < 1 || align > all_patterns)
    throw std::invalid_argument(fmt::format("split_range: alignment {}: expected 1 to 2^32 patterns", align));
  const std::uint64_t units = (hi - lo + align - 1) / align;  // <= 2^32, so units * n fits in 64 bits
  const auto at = [&](std::uint64_t k) { return std::min(hi, lo + units * k / static_cast<std::uint64_t>(n) * align); };
  return {at(static_cast<std::uint64_t>(i)), at(static_cast<std::uint64_t>(i) + 1)};
}

std::vector<SweepGrads> default_sweep_grads() {
  return {{"ordinary", 0.75, -1.25}, {"equal", 1.0, 1.0},  {"cancelling", 1.0, -1.0},
          {"gs zero", 1.0, 0.0},     {"gc zero", 0.0, 1.0}, {"subnormal gc", 0x1p-140, 1.0}};
}

SweepResult run_sweep(const SweepOptions& o, const SweepChunk& chunk, std::int64_t chunk_patterns,
                      const SweepProgress& progress) {
  if (!(o.lo < o.hi) || o.hi > all_patterns)
    throw std::invalid_argument(fmt::format("sweep range [{:#x}, {:#x}): expected lo < hi <= 2^32", o.lo, o.hi));
  SweepResult r;
  r.ran = true;
  r.lo = o.lo;
  r.hi = o.hi;
  r.next = r.lo;
  // The pieces swept: the range, or (quick) the first 2^16 patterns of each of its 16 shards,
  // so a short run still meets negative, huge and non-finite angles of a wide range.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pieces;
  if (o.quick)
    for (int k = 0; k < 16; ++k) {
      const auto [a, b] = split_range(o.lo, o.hi, k, 16);
      if (a < b) pieces.push_back({a, std::min(b, a + (std::uint64_t{1} << 16))});
    }
  else
    pieces.push_back({o.lo, o.hi});
  std::int64_t per_pair = 0;
  for (const auto& [a, b] : pieces) per_pair += static_cast<std::int64_t>(b - a);
  const std::int64_t total = per_pair * static_cast<std::int64_t>(o.grads.size());
  const auto t0 = std::chrono::steady_clock::now();
  CheckOptions co;
  co.gate = Tier::float32_bound;
  co.max_records = 64;
  co.max_deferred = chunk_patterns;  // never overflows: a chunk is judged whole
  co.max_candidates = o.worst_per_pair;
  // Chunks outside, pairs inside: when the time box closes, every pair is done up to `next`,
  // so --range next:hi resumes exactly.
  for (const SweepGrads& g : o.grads) r.pairs.push_back({g});
  for (const auto& [lo, hi] : pieces)
    for (std::uint64_t b = lo; b < hi; b += static_cast<std::uint64_t>(chunk_patterns)) {
      const std::int64_t n = static_cast<std::int64_t>(std::min<std::uint64_t>(chunk_patterns, hi - b));
      r.next = b;
      for (SweepPair& sp : r.pairs) {
        const auto start = std::chrono::steady_clock::now();
        const float gc = static_cast<float>(sp.grads.gc), gs = static_cast<float>(sp.grads.gs);
        const CheckPass pass = chunk(b, n, gc, gs, co);
        const auto element = [&](std::int64_t i) { return ref::Element{gc, gs, std::bit_cast<float>(static_cast<std::uint32_t>(i))}; };
        const Metrics m = settle(pass, element, Tier::float32_bound, max_failures_kept);
        for (const CheckRecord& c : pass.candidates) sp.worst.push_back({c.index, {c.gc, c.gs, c.t}, c.ref, c.got, c.scaled, c.ulps});
        // The list holds finite angles, as CORE-MATH's do (a NaN's bits do not survive a hex
        // float): a kernel's error at an infinite or NaN angle is in the counts and worst of
        // sweep.json, and the list takes the worst of the chunk's other handed-back elements.
        if (m.worst && std::isfinite(m.worst->in.t)) sp.worst.push_back(*m.worst);
        if (m.worst && !std::isfinite(m.worst->in.t)) {
          CheckPass finite;
          for (const DeferredElement& d : pass.deferred)
            if (std::isfinite(std::bit_cast<float>(static_cast<std::uint32_t>(d.index)))) finite.deferred.push_back(d);
          finite.deferred_total = static_cast<std::int64_t>(finite.deferred.size());
          const Metrics f = settle(finite, element, Tier::float32_bound, 0);
          if (f.worst) sp.worst.push_back(*f.worst);
        }
        keep_worst_reports(sp.worst, o.worst_per_pair);
        sp.metrics.merge(m, max_failures_kept);
        sp.angles += n;
        sp.deferred += pass.deferred_total;
        sp.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        r.angles += n;
        if (progress) progress(r.angles, total, fmt::format("sweep {}: patterns up to {:#x}", sp.grads.name, b + n));
      }
      r.next = b + static_cast<std::uint64_t>(n);
      r.reached = std::bit_cast<float>(static_cast<std::uint32_t>(r.next - 1));
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r.seconds > o.budget_s && r.angles < total) {  // time box: the result says where to resume
        for (const SweepPair& sp : r.pairs) r.metrics.merge(sp.metrics, max_failures_kept);
        return r;
      }
    }
  for (SweepPair& sp : r.pairs) {
    sp.complete = true;
    r.metrics.merge(sp.metrics, max_failures_kept);
  }
  r.complete = true;
  return r;
}

CheckPass host_sweep_chunk(std::uint64_t first, std::int64_t n, float gc, float gs, const CheckOptions& o) {
  std::vector<float> theta(n), out(n), gcs(n, gc), gss(n, gs);
  parallel_chunks(n, 1 << 16, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const float t = std::bit_cast<float>(static_cast<std::uint32_t>(first + static_cast<std::uint64_t>(i)));
      theta[i] = t;
      out[i] = -gc * std::sin(t) + gs * std::cos(t);  // float32 throughout: sinf, cosf
    }
  });
  CheckOptions c = o;
  c.index_base = static_cast<std::int64_t>(first);
  return host_check(gcs.data(), gss.data(), theta.data(), out.data(), n, ref::Dtype::fp32, c);
}

bool worse_report(const ElementReport& a, const ElementReport& b) {
  // A NaN error (NaN against a number) counts as the largest.
  auto rank = [](double scaled) { return std::isnan(scaled) ? INFINITY : scaled; };
  return rank(a.scaled_error) != rank(b.scaled_error) ? rank(a.scaled_error) > rank(b.scaled_error) : a.index < b.index;
}

void keep_worst_reports(std::vector<ElementReport>& v, std::size_t k) {
  std::sort(v.begin(), v.end(), worse_report);
  v.erase(std::unique(v.begin(), v.end(), [](const ElementReport& a, const ElementReport& b) { return a.index == b.index; }),
          v.end());
  if (v.size() > k) v.resize(k);
}

}  // namespace rope2d::verify
