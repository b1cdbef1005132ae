// Output-versus-reference comparison.
#include "rope2d/verify/model/metrics.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>

#include "rope2d/ref/floats.hpp"
#include "rope2d/verify/model/tolerance_core.hpp"

namespace rope2d::verify {

using core::ulp_of;

std::string ElementReport::line(const std::string& set, const char* label) const {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s %s i=%lld gc=%s gs=%s t=%s ref=%s got=%s err=%.3g*2^-24*S ulp=%.3g",
                label, set.c_str(), static_cast<long long>(index), ref::hex(in.gc).c_str(), ref::hex(in.gs).c_str(),
                ref::hex(in.t).c_str(), ref::hex(ref).c_str(), ref::hex(got).c_str(), scaled_error, ulps);
  return buf;
}

double absolute_difference(const ElementReport& r) { return std::fabs(static_cast<double>(r.got) - r.ref); }

double relative_difference(const ElementReport& r) {
  const double d = absolute_difference(r);
  return d == 0 ? 0 : r.ref == 0.0f ? INFINITY : d / std::fabs(static_cast<double>(r.ref));
}

double Metrics::rms_scaled() const { return count ? std::sqrt(sum_sq_scaled / count) : 0.0; }

std::string Metrics::subnormal_mode() const {
  std::string s;
  for (unsigned m = 1; m < flush_mask_count; ++m)
    if (subnormal_modes[m] > 0)
      s.append(s.empty() ? "flushes " : ", ").append(flush_mask_name(m)).append(" (" + std::to_string(subnormal_modes[m]) + ")");
  if (!s.empty()) return s;
  if (subnormal_modes[0] > 0) return "IEEE (" + std::to_string(subnormal_modes[0]) + " elements with subnormal values)";
  return subnormal_unexplained > 0 ? "no evaluation fits" : "no subnormal values";
}

bool Metrics::passes(Tier t) const { return passes(t, subnormals); }

bool Metrics::round_passes(const TierRule& r, std::int64_t over_count) const {
  if (count == 0) return true;
  if (poisoned > 0 || nonfinite_mismatch > 0) return false;
  // nonfinite_mismatch and overflow_accepted count elements that sxb.nonfinite counts too (a
  // report.json written before sxb was recorded holds only them).
  if (r.rules.nonfinite == NonFinite::fails && sxb.nonfinite > 0) return false;
  if (!r.bound_based && overflow_accepted > 0) return false;  // only a bound accepts an Inf
  if (r.rules.zero == ZeroTest::float32_norm ? sxb.all_zero : all_zero) return false;
  if (r.rules.ratio_test == RatioTest::matched_not_below) {
    // correctness.py: matched_ratio = 1 - exceeds / total, in double; fails below the ratio.
    const double matched = 1.0 - static_cast<double>(over_count) / static_cast<double>(count);
    return !(matched < r.ratio);
  }
  const double passed = static_cast<double>(count - over_count) / count;
  return passed >= r.ratio;
}

bool Metrics::verdict(const TierRule& r, std::int64_t over_count, std::int64_t failed_round_count) const {
  if (r.rules.rounds == Rounds::each) return failed_round_count == 0 && (sxb.rounds > 0 || round_passes(r, over_count));
  return round_passes(r, over_count);
}

namespace {

// The elements over tier t with subnormals judged as s. A tier without flushed alternatives
// counts the same elements either way (over == over_ieee where both are computed; a report
// read back holds only over).
std::int64_t counted_over(const Metrics& m, Tier t, Subnormals s) {
  const bool ieee = s == Subnormals::ieee && rule(t).rules.flushed_alternatives;
  return (ieee ? m.over_ieee : m.over)[static_cast<int>(t)];
}

}  // namespace

void Metrics::close_round() {
  sxb.rounds = 1;
  for (Tier t : all_tiers) failed_rounds[static_cast<int>(t)] = round_passes(rule(t), counted_over(*this, t, subnormals)) ? 0 : 1;
}

std::string Metrics::sxb_disagreement(Tier t) const {
  const bool ours = passes(t), theirs = passes(Tier::solexecbench);
  if (ours == theirs) return "";
  if (!theirs) {
    if (sxb.nonfinite > 0)
      return std::to_string(sxb.nonfinite) + " NaN/Inf values (in the output or the reference): SOL-ExecBench fails any, even where the exact result is one";
    if (sxb.all_zero) return "the output's float32 norm is zero: SOL-ExecBench's all-zero test";
    return std::to_string(over[core::sxb_tier]) + " elements over atol + rtol |ref| (1e-5 each): more than SOL-ExecBench's 1% allowance";
  }
  return "within SOL-ExecBench's 1e-5 + 1e-5 |ref| on 99% of elements, but over " + std::string(name(t)) +
         "'s bound (exact reference; SOL-ExecBench compares with a float32 evaluation)";
}

bool Metrics::passes(Tier t, Subnormals s) const {
  return verdict(rule(t), counted_over(*this, t, s), failed_rounds[static_cast<int>(t)]);
}

void Metrics::merge(const Metrics& o, std::size_t max_failures) {
  all_zero = (count == 0 ? o.all_zero : all_zero && o.all_zero);
  count += o.count;
  correctly_rounded += o.correctly_rounded;
  nonfinite_mismatch += o.nonfinite_mismatch;
  sxb.nonfinite += o.sxb.nonfinite;
  sxb.nan += o.sxb.nan;
  sxb.max_abs = std::max(sxb.max_abs, o.sxb.max_abs);
  sxb.max_rel = std::max(sxb.max_rel, o.sxb.max_rel);
  sxb.all_zero |= o.sxb.all_zero;
  sxb.rounds += o.sxb.rounds;
  for (int t = 0; t < tier_count; ++t) failed_rounds[t] += o.failed_rounds[t];
  poisoned += o.poisoned;
  overflow_accepted += o.overflow_accepted;
  subnormal_unexplained += o.subnormal_unexplained;
  subnormals = o.subnormals;
  max_scaled = std::max(max_scaled, o.max_scaled);
  sum_sq_scaled += o.sum_sq_scaled;
  max_ulp = std::max(max_ulp, o.max_ulp);
  for (int t = 0; t < tier_count; ++t) over[t] += o.over[t];
  for (int t = 0; t < tier_count; ++t) over_ieee[t] += o.over_ieee[t];
  for (int m = 0; m < flush_mask_count; ++m) subnormal_modes[m] += o.subnormal_modes[m];
  for (std::size_t k = 0; k < histogram.size(); ++k) histogram[k] += o.histogram[k];
  for (std::size_t k = 0; k < max_by_angle.size(); ++k) max_by_angle[k] = std::max(max_by_angle[k], o.max_by_angle[k]);
  if (o.worst && (!worst || o.worst->scaled_error > worst->scaled_error)) worst = o.worst;
  // The greater difference, the lower index on a tie: the same element whatever order the
  // parts come in.
  const auto keep = [](std::optional<ElementReport>& mine, const std::optional<ElementReport>& theirs, double (*key)(const ElementReport&)) {
    if (theirs && (!mine || key(*theirs) > key(*mine) || (key(*theirs) == key(*mine) && theirs->index < mine->index))) mine = theirs;
  };
  keep(greatest_abs, o.greatest_abs, absolute_difference);
  keep(greatest_rel, o.greatest_rel, relative_difference);
  for (const auto& f : o.failures)
    if (failures.size() < max_failures) failures.push_back(f);
}

namespace {

// One element's verdict per tier, IEEE and with flushed alternatives.
struct Judged {
  std::array<bool, tier_count> ieee{}, any{};
  bool subnormal = false;  // a subnormal value took part
  int mode = -1;           // closest fitting evaluation in the float32-bound tier (mask), -1 none
};

Judged judge_element(const ref::Element& e, float ref, double scale, float got) {
  Judged j;
  bool all_ieee = true;
  const bool finite = std::isfinite(ref) && std::isfinite(got);  // the common case: within() without its special cases
  const double err = std::fabs(static_cast<double>(got) - ref);
  for (Tier t : all_tiers) {
    const int k = static_cast<int>(t);
    j.any[k] = j.ieee[k] = finite && rule(t).rules.element == ElementTest::allowance ? err <= allowance(t, ref, scale, e.gc)
                                                                                       : within(t, e, ref, scale, got);
    all_ieee &= j.ieee[k];
  }
  if (!may_involve_subnormal(e, ref) || !involves_subnormal(e, ref)) return j;
  j.subnormal = true;
  if (j.ieee[static_cast<int>(Tier::float32_bound)]) j.mode = 0;
  if (all_ieee) return j;
  const std::vector<FlushedProblem> alts = flushed_problems(e);
  for (const FlushedProblem& a : alts)
    for (Tier t : all_tiers) {
      const int k = static_cast<int>(t);
      // A tier without flushed alternatives (SOL-ExecBench's) compares with the one reference.
      if (j.any[k] || !rule(t).rules.flushed_alternatives || !within(t, a.e, a.ref, a.scale, got)) continue;
      j.any[k] = true;
      if (t == Tier::float32_bound && j.mode < 0) j.mode = static_cast<int>(a.mask);
    }
  return j;
}

// Records one element that is not bit-equal to the reference.
void record(Metrics& part, const ElementReport& base, double scale, Subnormals mode, Tier gate, std::size_t max_failures) {
  ElementReport r = base;
  const Judged j = judge_element(r.in, r.ref, scale, r.got);
  if (j.subnormal) (j.mode >= 0 ? ++part.subnormal_modes[j.mode] : ++part.subnormal_unexplained);
  const double err = std::isfinite(r.ref) && std::isfinite(r.got) ? std::fabs(static_cast<double>(r.got) - r.ref)
                                                                   : judged_error(r.in, r.ref, r.got);
  const bool fails_all = std::none_of(j.any.begin(), j.any.end(), [](bool b) { return b; });
  if (!std::isfinite(r.ref) || !std::isfinite(r.got)) {
    ++part.sxb.nonfinite;
    part.sxb.nan += std::isnan(r.ref) || std::isnan(r.got);
    if (fails_all) ++part.nonfinite_mismatch;
    else ++part.overflow_accepted;
  }
  r.scaled_error = scale > 0 ? err / (0x1p-24 * scale) : (err > 0 ? INFINITY : 0);
  r.ulps = err / ulp_of(std::isfinite(r.ref) ? r.ref : std::numeric_limits<float>::max());
  if (r.ref == 0.0f && r.got == 0.0f) ++part.correctly_rounded;  // ±0 against ∓0 counts as right
  const auto& ok = mode == Subnormals::ieee ? j.ieee : j.any;
  for (int k = 0; k < tier_count; ++k) {
    part.over[k] += !ok[k];
    part.over_ieee[k] += !j.ieee[k];
  }
  if (std::isfinite(r.ref) && std::isfinite(r.got)) {
    // Elements come in index order within a part: strictly greater keeps the lowest index.
    if (!part.greatest_abs || absolute_difference(r) > absolute_difference(*part.greatest_abs)) part.greatest_abs = r;
    if (!part.greatest_rel || relative_difference(r) > relative_difference(*part.greatest_rel)) part.greatest_rel = r;
    const core::SxbErrors x = core::sxb_errors(r.got, r.ref);
    part.sxb.max_abs = std::max(part.sxb.max_abs, static_cast<double>(x.abs));
    part.sxb.max_rel = std::max(part.sxb.max_rel, static_cast<double>(x.rel));
  }
  if (std::isfinite(r.scaled_error)) part.sum_sq_scaled += r.scaled_error * r.scaled_error;
  part.max_ulp = std::max(part.max_ulp, r.ulps);
  const double se = r.scaled_error;
  ++part.histogram[core::error_bin(se)];
  const int abin = core::angle_bin(r.in.t);
  if (std::isfinite(se)) part.max_by_angle[abin] = std::max(part.max_by_angle[abin], se);
  if (r.scaled_error > part.max_scaled || !part.worst) {
    part.max_scaled = std::max(part.max_scaled, r.scaled_error);
    part.worst = r;
  }
  if (!ok[static_cast<int>(gate)] && part.failures.size() < max_failures) part.failures.push_back(r);
}

}  // namespace

Metrics compare(const Problem& p, const Expected& x, const float* out, Tier gate, std::size_t max_failures,
                Subnormals subnormals) {
  constexpr std::int64_t chunk = 1 << 16;
  Metrics total;
  total.subnormals = subnormals;
  std::mutex m;
  bool any_nonzero_ref = false;
  bool any_nonzero_out = false;
  bool norm_ref = false, norm_out = false;  // the float32 norms are not zero (SOL-ExecBench)
  // One part per chunk, merged in index order whatever order the chunks ran in: the failures
  // kept, the worst among equals and every sum are the same on every run.
  std::vector<Metrics> parts(static_cast<std::size_t>((p.n() + chunk - 1) / chunk));
  parallel_chunks(p.n(), chunk, [&](std::int64_t begin, std::int64_t end) {
    Metrics& part = parts[static_cast<std::size_t>(begin / chunk)];
    part.subnormals = subnormals;
    bool nz_ref = false, nz_out = false, sq_ref = false, sq_out = false;
    for (std::int64_t i = begin; i < end; ++i) {
      const float ref = x.fp32[i], got = out[i];
      ++part.count;
      nz_ref |= ref != 0.0f;
      nz_out |= got != 0.0f;
      sq_ref |= core::sxb_norm_nonzero(ref);
      sq_out |= core::sxb_norm_nonzero(got);
      const bool bit_equal = std::bit_cast<std::uint32_t>(ref) == std::bit_cast<std::uint32_t>(got);
      const bool both_nan = std::isnan(ref) && std::isnan(got);
      if (std::bit_cast<std::uint32_t>(got) == poison_bits && !std::isnan(ref)) ++part.poisoned;
      if (bit_equal || both_nan) {
        ++part.correctly_rounded;
        ++part.histogram[0];
        if (!std::isfinite(ref)) {
          ++part.sxb.nonfinite;
          part.sxb.nan += std::isnan(ref);
        }
        // Exactly the IEEE result: evidence of IEEE behaviour where a subnormal takes part.
        const ref::Element e = p.element(i);
        if (may_involve_subnormal(e, ref) && involves_subnormal(e, ref)) ++part.subnormal_modes[0];
        continue;
      }
      record(part, {i, p.element(i), ref, got, 0, 0}, x.scale[i], subnormals, gate, max_failures);
    }
    std::lock_guard lock(m);
    any_nonzero_ref |= nz_ref;
    any_nonzero_out |= nz_out;
    norm_ref |= sq_ref;
    norm_out |= sq_out;
  });
  for (const Metrics& part : parts) total.merge(part, max_failures);
  total.all_zero = any_nonzero_ref && !any_nonzero_out;
  total.sxb.all_zero = norm_ref && !norm_out;
  return total;
}

}  // namespace rope2d::verify
