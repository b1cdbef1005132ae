// The mismatch message (mismatch.hpp): torch.testing.assert_close's lines, with the tier's
// allowance of each element in place of torch's atol and rtol (our tiers scale with the
// condition S = |gc sin t| + |gs cos t|, so what is allowed differs element by element).
#include "rope2d/verify/model/mismatch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "rope2d/ref/backward.hpp"

namespace rope2d::verify {

std::string index_text(std::int64_t i, std::span<const std::int64_t> shape) {
  std::int64_t n = shape.empty() ? 0 : 1;
  for (std::int64_t d : shape) n = d > 0 && n <= INT64_MAX / d ? n * d : -1;
  if (i < 0 || n <= 0 || i >= n) return fmt::format("({})", i);
  std::vector<std::int64_t> at(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    at[k] = i % shape[k];
    i /= shape[k];
  }
  return fmt::format("({})", fmt::join(at, ", "));
}

namespace {

// The tier's allowance at one element, absolute, as within() applies it.
double allowance_at(Tier gate, const ElementReport& r) {
  return judged_allowance(gate, r.in, r.ref, ref::condition_scale(r.in));
}

std::string mismatch_share(std::int64_t k, std::int64_t n) {
  const double pct = 100.0 * static_cast<double>(k) / static_cast<double>(n);
  // torch prints one decimal; a few mismatches in a large output would read 0.0%.
  return k > 0 && pct < 0.05 ? fmt::format("{:.2g}%", pct) : fmt::format("{:.1f}%", pct);
}

}  // namespace

std::vector<std::string> mismatch_lines(const Metrics& m, Tier gate, std::span<const std::int64_t> shape) {
  if (m.count <= 0) return {};
  std::vector<std::string> out;
  const std::int64_t over = m.over[static_cast<int>(gate)];
  out.push_back(fmt::format("Mismatched elements: {} / {} ({})", over, m.count, mismatch_share(over, m.count)));
  if (m.worst) {
    const ElementReport& w = *m.worst;
    const double s = ref::condition_scale(w.in);
    const double allowed = s > 0 ? allowance_at(gate, w) / (0x1p-24 * s) : INFINITY;
    out.push_back(fmt::format("Worst element: {:.3g} x 2^-24 S at index {} (up to {:.3g} x 2^-24 S allowed there)",
                              w.scaled_error, index_text(w.index, shape), allowed));
  }
  if (m.greatest_abs) {
    const ElementReport& a = *m.greatest_abs;
    out.push_back(fmt::format("Greatest absolute difference: {:.3g} at index {} (up to {:.3g} allowed there)",
                              absolute_difference(a), index_text(a.index, shape), allowance_at(gate, a)));
  } else {
    out.push_back(fmt::format("Greatest absolute difference: {:.3g} (the GPU comparison keeps no index)", m.sxb.max_abs));
  }
  if (m.greatest_rel) {
    const ElementReport& r = *m.greatest_rel;
    const double allowed = r.ref == 0.0f ? INFINITY : allowance_at(gate, r) / std::fabs(static_cast<double>(r.ref));
    out.push_back(fmt::format("Greatest relative difference: {:.3g} at index {} (up to {:.3g} allowed there)",
                              relative_difference(r), index_text(r.index, shape), allowed));
  } else {
    out.push_back(fmt::format("Greatest relative difference: {:.3g} (|got - ref| / max(|ref|, 1e-5); the GPU comparison "
                              "keeps no index)", m.sxb.max_rel));
  }
  return out;
}

}  // namespace rope2d::verify
