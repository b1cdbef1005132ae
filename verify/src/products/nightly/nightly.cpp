// Nightly regression rules, run dates and seeds.
#include "products/nightly/nightly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "products/nightly/nightly_shard.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

using nlohmann::json;

std::vector<std::string> nightly_regressions(const NightSummary& now, const NightSummary& previous) {
  const double s_coefficient = rule(Tier::float32_bound).scale_coeff * 0x1p24;  // 6.000001
  std::vector<std::string> out;
  for (const NightVerify& cur : now.verify) {
    for (const NightVerify& before : previous.verify) {
      if (before.kernel != cur.kernel) continue;
      // One run per kernel and grad dtype; a summary from before that split has one run of
      // all dtypes per kernel: its sets (named with their dtype) still compare, its time not.
      if (cur.grad_dtype && before.grad_dtype && cur.grad_dtype != before.grad_dtype) continue;
      const std::string& kernel = cur.kernel;
      if (cur.grad_dtype == before.grad_dtype && cur.seconds && before.seconds && *cur.seconds > 1.25 * *before.seconds + 2)
        out.push_back(fmt::format("{}: verify took {:.1f} s, was {:.1f} s", kernel, *cur.seconds, *before.seconds));
      for (const auto& [set, r] : cur.sets) {
        const auto b = before.sets.find(set);
        if (b == before.sets.end()) continue;
        if (b->second.disposition == Disposition::passed && r.disposition != Disposition::passed)
          out.push_back(fmt::format("{} {}: newly {}", kernel, set, name(r.disposition)));
        // Max errors in units of 2^-24 S compare where the earlier night's was within the S term
        // of the bound: above its coefficient a passing set's error is allowed by the subnormal
        // and reference terms instead, which fresh inputs each night move by whole factors.
        const bool comparable = r.max && b->second.max && *b->second.max <= s_coefficient;
        if (comparable && r.elements >= 65536 && *r.max > 1.25 * *b->second.max + 0.25)
          out.push_back(fmt::format("{} {}: max error {:.3g} (was {:.3g}) x 2^-24 S", kernel, set, *r.max, *b->second.max));
      }
    }
  }
  for (const NightGolden& g : now.golden.results)
    for (const NightGolden& b : previous.golden.results)
      if (b.problem == g.problem && b.disposition == Disposition::passed && g.disposition != Disposition::passed)
        out.push_back(fmt::format("golden {}: newly {}", g.problem, name(g.disposition)));
  const NightSweep &ps = previous.sweep, &ns = now.sweep;
  if (ns.ran && ps.ran && ns.max_scaled_error > 1.5 * ps.max_scaled_error + 0.5)
    out.push_back(fmt::format("sweep: max error {:.3g}, was {:.3g}", ns.max_scaled_error, ps.max_scaled_error));
  return out;
}

std::uint64_t nightly_seed(const std::string& date) { return fnv1a64(date) & 0xffffffff; }

}  // namespace rope2d::verify
