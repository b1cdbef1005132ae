// Output-versus-reference comparison.
#include "rope2d/verify/metrics.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>

#include "rope2d/ref/floats.hpp"

namespace rope2d::verify {

namespace {

double ulp_of(float r) {
  const int e = std::max(std::ilogb(r == 0.0f ? 0x1p-149f : r), -126);
  return std::ldexp(1.0, e - 23);
}

}  // namespace

std::string ElementReport::line(const std::string& set, const char* label) const {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s %s i=%lld gc=%s gs=%s t=%s ref=%s got=%s err=%.3g*2^-24*S ulp=%.3g",
                label, set.c_str(), static_cast<long long>(index), ref::hex(in.gc).c_str(), ref::hex(in.gs).c_str(),
                ref::hex(in.t).c_str(), ref::hex(ref).c_str(), ref::hex(got).c_str(), scaled_error, ulps);
  return buf;
}

double Metrics::rms_scaled() const { return count ? std::sqrt(sum_sq_scaled / count) : 0.0; }

bool Metrics::passes(Tier t) const {
  if (count == 0) return true;
  if (all_zero || nonfinite_mismatch > 0 || poisoned > 0) return false;
  const double passed = static_cast<double>(count - over[static_cast<int>(t)]) / count;
  return passed >= rule(t).ratio;
}

void Metrics::merge(const Metrics& o, std::size_t max_failures) {
  all_zero = (count == 0 ? o.all_zero : all_zero && o.all_zero);
  count += o.count;
  correctly_rounded += o.correctly_rounded;
  nonfinite_mismatch += o.nonfinite_mismatch;
  poisoned += o.poisoned;
  max_scaled = std::max(max_scaled, o.max_scaled);
  sum_sq_scaled += o.sum_sq_scaled;
  max_ulp = std::max(max_ulp, o.max_ulp);
  for (int t = 0; t < tier_count; ++t) over[t] += o.over[t];
  for (std::size_t k = 0; k < histogram.size(); ++k) histogram[k] += o.histogram[k];
  for (std::size_t k = 0; k < max_by_angle.size(); ++k) max_by_angle[k] = std::max(max_by_angle[k], o.max_by_angle[k]);
  if (o.worst && (!worst || o.worst->scaled_error > worst->scaled_error)) worst = o.worst;
  for (const auto& f : o.failures)
    if (failures.size() < max_failures) failures.push_back(f);
}

Metrics compare(const Problem& p, const Expected& x, const float* out, Tier gate, std::size_t max_failures) {
  Metrics total;
  std::mutex m;
  bool any_nonzero_ref = false;
  bool any_nonzero_out = false;
  parallel_chunks(p.n(), 1 << 16, [&](std::int64_t begin, std::int64_t end) {
    Metrics part;
    bool nz_ref = false, nz_out = false;
    for (std::int64_t i = begin; i < end; ++i) {
      const float ref = x.fp32[i], got = out[i];
      ++part.count;
      nz_ref |= ref != 0.0f;
      nz_out |= got != 0.0f;
      const bool bit_equal = std::bit_cast<std::uint32_t>(ref) == std::bit_cast<std::uint32_t>(got);
      const bool both_nan = std::isnan(ref) && std::isnan(got);
      if (std::bit_cast<std::uint32_t>(got) == poison_bits && !std::isnan(ref)) ++part.poisoned;
      if (bit_equal || both_nan) {
        ++part.correctly_rounded;
        ++part.histogram[0];
        continue;
      }
      ElementReport r{i, p.element(i), ref, got, 0, 0};
      bool fails_all = false;
      if (!std::isfinite(ref) || !std::isfinite(got)) {
        // Non-finite on either side: only an identical non-finite value is right.
        const bool ok = (std::isnan(ref) && std::isnan(got)) || (std::isinf(ref) && ref == got);
        if (!ok) {
          ++part.nonfinite_mismatch;
          fails_all = true;
          r.scaled_error = r.ulps = INFINITY;
        }
      } else {
        const double err = std::fabs(static_cast<double>(got) - ref);
        r.scaled_error = x.scale[i] > 0 ? err / (0x1p-24 * x.scale[i]) : (err > 0 ? INFINITY : 0);
        r.ulps = err / ulp_of(ref);
        if (ref == 0.0f && got == 0.0f) ++part.correctly_rounded;  // ±0 against ∓0 counts as right
        for (Tier t : all_tiers)
          if (err > allowance(t, ref, x.scale[i], r.in.gc)) ++part.over[static_cast<int>(t)];
        if (std::isfinite(r.scaled_error)) part.sum_sq_scaled += r.scaled_error * r.scaled_error;
      }
      if (fails_all)
        for (auto& o : part.over) ++o;
      part.max_ulp = std::max(part.max_ulp, r.ulps);
      {
        const double se = r.scaled_error;
        const int bin = se == 0 ? 0 : !std::isfinite(se) ? 19 : std::clamp(static_cast<int>(std::ceil(std::log2(se))) + 9, 1, 19);
        ++part.histogram[bin];
        const float at = std::fabs(r.in.t);
        const int abin = std::isfinite(at) && at >= 1 ? std::min(std::ilogb(at) + 1, 25) : 0;
        if (std::isfinite(se)) part.max_by_angle[abin] = std::max(part.max_by_angle[abin], se);
      }
      if (r.scaled_error > part.max_scaled || !part.worst) {
        part.max_scaled = std::max(part.max_scaled, r.scaled_error);
        part.worst = r;
      }
      if (fails_all || (std::isfinite(ref) && std::fabs(static_cast<double>(got) - ref) >
                                                  allowance(gate, ref, x.scale[i], r.in.gc)))
        if (part.failures.size() < max_failures) part.failures.push_back(r);
    }
    std::lock_guard lock(m);
    any_nonzero_ref |= nz_ref;
    any_nonzero_out |= nz_out;
    total.merge(part, max_failures);
  });
  total.all_zero = any_nonzero_ref && !any_nonzero_out;
  // Chunks finish in any order: keep the reported failures in index order.
  std::sort(total.failures.begin(), total.failures.end(),
            [](const ElementReport& a, const ElementReport& b) { return a.index < b.index; });
  return total;
}

}  // namespace rope2d::verify
