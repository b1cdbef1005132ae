// The host side of the GPU comparison (gpu_check.hpp): the host twin of the device pass (the
// same per-element code, judge/gpu_check/element.hpp, with glibc's sincos), and settle(), which
// turns a pass into the Metrics of compare(), judging the deferred elements on the CPU.
#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "judge/gpu_check/element.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "rope2d/verify/judge/worst.hpp"

namespace rope2d::verify {

void CheckPartial::merge(const CheckPartial& o) {
  count += o.count;
  correctly_rounded += o.correctly_rounded;
  subnormal_ieee += o.subnormal_ieee;
  for (int k = 0; k < tier_count; ++k) over[k] += o.over[k];
  for (int k = 0; k < 20; ++k) histogram[k] += o.histogram[k];
  for (int k = 0; k < 26; ++k) max_by_angle[k] = std::max(max_by_angle[k], o.max_by_angle[k]);
  sum_sq += o.sum_sq;
  max_ulp = std::max(max_ulp, o.max_ulp);
  nonzero_ref |= o.nonzero_ref;
  nonzero_out |= o.nonzero_out;
  norm_ref |= o.norm_ref;
  norm_out |= o.norm_out;
  sxb_max_abs = std::max(sxb_max_abs, o.sxb_max_abs);
  sxb_max_rel = std::max(sxb_max_rel, o.sxb_max_rel);
  nan += o.nan;
  if (o.has_worst && (!has_worst || o.max_scaled > max_scaled ||
                      (o.max_scaled == max_scaled && o.worst.index < worst.index))) {
    worst = o.worst;
    has_worst = 1;
  }
  max_scaled = std::max(max_scaled, o.max_scaled);
}

void keep_worst(std::vector<CheckRecord>& records, std::size_t k) {
  std::sort(records.begin(), records.end(), [](const CheckRecord& a, const CheckRecord& b) {
    return a.scaled != b.scaled ? a.scaled > b.scaled : a.index < b.index;
  });
  if (records.size() > k) records.resize(k);
}

namespace {

// One element into a partial, as the device kernel counts it.
void accumulate(CheckPartial& p, const gpucheck::Verdict& v, const CheckRecord& r) {
  gpucheck::count_settled(p, v);
  if (v.bit_equal) {
    ++p.histogram[0];
    return;
  }
  ++p.histogram[core::error_bin(v.scaled)];
  for (int k = 0; k < tier_count; ++k) p.over[k] += (v.over >> k) & 1u;
  p.sum_sq += v.scaled * v.scaled;
  p.max_ulp = std::max(p.max_ulp, v.ulps);
  double& a = p.max_by_angle[core::angle_bin(r.t)];
  a = std::max(a, v.scaled);
  if (!p.has_worst || v.scaled > p.max_scaled) {  // in index order: ties keep the lowest index
    p.max_scaled = v.scaled;
    p.worst = r;
    p.has_worst = 1;
  }
}

}  // namespace

CheckPass host_check(const void* gc, const void* gs, const float* theta, const float* out, std::int64_t n,
                     ref::Dtype grad_dtype, const CheckOptions& o) {
  // The device pass's canary (judge/gpu_check/element.hpp), checked here too: a host build with
  // flush-to-zero (-ffast-math's crtfastmath) would misjudge it the same way.
  if (const unsigned f = gpucheck::canary_faults())
    throw std::logic_error("internal error: the host judge misjudged its subnormal canary (faults " + std::to_string(f) +
                           "): it was built with flush-to-zero or fast math, and its verdicts cannot be trusted");
  const int dtype = ref::abi_code(grad_dtype);
  constexpr std::int64_t piece = 1 << 16;
  const std::int64_t pieces = (n + piece - 1) / piece;
  struct Piece {
    CheckPartial partial;
    std::vector<CheckRecord> failures;
    std::vector<DeferredElement> deferred;
  };
  std::vector<Piece> parts(static_cast<std::size_t>(pieces));
  const unsigned gate_bit = 1u << static_cast<int>(o.gate);
  parallel_chunks(n, piece, [&](std::int64_t begin, std::int64_t end) {
    Piece& part = parts[static_cast<std::size_t>(begin / piece)];
    for (std::int64_t i = begin; i < end; ++i) {
      const double g = gpucheck::decode_grad(gc, i, dtype), s = gpucheck::decode_grad(gs, i, dtype);
      const gpucheck::Verdict v = gpucheck::judge(g, s, theta[i], out[i]);
      if (v.defer) {
        part.deferred.push_back({o.index_base + i, out[i]});
        continue;
      }
      const CheckRecord r = gpucheck::make_record(o.index_base + i, g, s, theta[i], out[i], v);
      accumulate(part.partial, v, r);
      if (v.over & gate_bit) part.failures.push_back(r);
    }
  });
  // Merged in index order, whatever order the pieces ran in: the result is reproducible.
  CheckPass pass;
  for (const Piece& part : parts) {
    pass.total.merge(part.partial);
    if (part.partial.has_worst && o.max_candidates > 0) pass.candidates.push_back(part.partial.worst);
    pass.failures_total += static_cast<std::int64_t>(part.failures.size());
    for (const CheckRecord& r : part.failures)
      if (pass.failures.size() < o.max_records) pass.failures.push_back(r);
    pass.deferred_total += static_cast<std::int64_t>(part.deferred.size());
    for (const DeferredElement& d : part.deferred)
      if (static_cast<std::int64_t>(pass.deferred.size()) < o.max_deferred) pass.deferred.push_back(d);
  }
  keep_worst(pass.candidates, o.max_candidates);
  pass.deferred_complete = pass.deferred_total == static_cast<std::int64_t>(pass.deferred.size());
  return pass;
}

namespace {

ElementReport report_of(const CheckRecord& r) { return {r.index, {r.gc, r.gs, r.t}, r.ref, r.got, r.scaled, r.ulps}; }

bool by_index(const ElementReport& a, const ElementReport& b) { return a.index < b.index; }

}  // namespace

Metrics settle(const CheckPass& pass, const ElementLookup& lookup, Tier gate, std::size_t max_failures,
               Subnormals subnormals) {
  if (!pass.deferred_complete) throw std::logic_error("settle: the deferred list overflowed; judge the range on the CPU");
  const CheckPartial& t = pass.total;
  Metrics m;
  m.subnormals = subnormals;
  m.count = t.count;
  m.correctly_rounded = t.correctly_rounded;
  for (int k = 0; k < tier_count; ++k) m.over[k] = m.over_ieee[k] = t.over[k];  // settled: no flushed alternative counts
  std::copy(std::begin(t.histogram), std::end(t.histogram), m.histogram.begin());
  std::copy(std::begin(t.max_by_angle), std::end(t.max_by_angle), m.max_by_angle.begin());
  m.sum_sq_scaled = t.sum_sq;
  m.max_scaled = t.max_scaled;
  m.max_ulp = t.max_ulp;
  m.subnormal_modes[0] = t.subnormal_ieee;
  m.sxb.max_abs = t.sxb_max_abs;
  m.sxb.max_rel = t.sxb_max_rel;
  m.sxb.nonfinite = m.sxb.nan = t.nan;
  if (t.has_worst) m.worst = report_of(t.worst);
  std::vector<ElementReport> failures;
  for (const CheckRecord& r : pass.failures) failures.push_back(report_of(r));

  bool nonzero_ref = t.nonzero_ref, nonzero_out = t.nonzero_out;
  bool norm_ref = t.norm_ref, norm_out = t.norm_out;
  if (!pass.deferred.empty()) {
    // The deferred elements as a problem of their own, judged by compare(): fp32 grads hold
    // every bf16 and fp16 value exactly, and the flushed alternatives depend on values only.
    const std::int64_t n = static_cast<std::int64_t>(pass.deferred.size());
    std::vector<ref::Element> elements(n);
    std::vector<float> got(n);
    parallel_chunks(n, 1 << 14, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        elements[i] = lookup(pass.deferred[i].index);
        got[i] = pass.deferred[i].got;
      }
    });
    const Problem sub = problem_of("deferred", ref::Dtype::fp32, elements);
    if (sub.n() != n) throw std::logic_error("settle: a deferred element's grads are not float32 values");
    const Expected x = compute_expected(sub);
    Metrics d = compare(sub, x, got.data(), gate, max_failures, subnormals);
    for (ElementReport& f : d.failures) f.index = pass.deferred[f.index].index;
    if (d.worst) d.worst->index = pass.deferred[d.worst->index].index;
    for (std::int64_t i = 0; i < n; ++i) {
      nonzero_ref |= x.fp32[i] != 0.0f;
      nonzero_out |= got[i] != 0.0f;
      norm_ref |= core::sxb_norm_nonzero(x.fp32[i]);
      norm_out |= core::sxb_norm_nonzero(got[i]);
    }
    failures.insert(failures.end(), d.failures.begin(), d.failures.end());
    d.failures.clear();
    m.merge(d, 0);
    // The deferred elements' greatest differences are not the problem's (the pass keeps only
    // the values): none rather than a wrong index.
    m.greatest_abs.reset();
    m.greatest_rel.reset();
  }
  std::sort(failures.begin(), failures.end(), by_index);
  if (failures.size() > max_failures) failures.resize(max_failures);
  m.failures = std::move(failures);
  m.all_zero = nonzero_ref && !nonzero_out;
  m.sxb.all_zero = norm_ref && !norm_out;
  return m;
}

Metrics host_compare(const Problem& p, const float* out, Tier gate, std::size_t max_failures, Subnormals subnormals) {
  CheckOptions o;
  o.gate = gate;
  o.max_deferred = p.n();
  const CheckPass pass = host_check(p.gc.data(), p.gs.data(), p.theta.data(), out, p.n(), p.spec.grad_dtype, o);
  return settle(pass, [&](std::int64_t i) { return p.element(i); }, gate, max_failures, subnormals);
}

}  // namespace rope2d::verify
