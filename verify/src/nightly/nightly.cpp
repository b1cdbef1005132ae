// Nightly regression rules, run dates and seeds.
#include "rope2d/verify/nightly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "rope2d/verify/nightly_shard.hpp"
#include "rope2d/verify/suites.hpp"

namespace rope2d::verify {

using nlohmann::json;

std::vector<std::string> nightly_regressions(const json& now, const json& previous) {
  std::vector<std::string> out;
  const json before_verify = previous.value("verify", json::array());
  const json now_verify = now.value("verify", json::array());
  for (const json& cur : now_verify) {
    for (const json& before : before_verify) {
      if (before.value("kernel", "") != cur.value("kernel", "")) continue;
      // One run per kernel and grad dtype; a summary from before that split has one run of
      // all dtypes per kernel: its sets (named with their dtype) still compare, its time not.
      const json dtype = cur.value("grad_dtype", json()), before_dtype = before.value("grad_dtype", json());
      if (!dtype.is_null() && !before_dtype.is_null() && dtype != before_dtype) continue;
      const std::string kernel = cur.value("kernel", "");
      if (dtype == before_dtype && cur.value("seconds", 0.0) > 1.25 * before.value("seconds", 1e9) + 2)
        out.push_back(fmt::format("{}: verify took {:.1f} s, was {:.1f} s", kernel, cur.value("seconds", 0.0),
                                  before.value("seconds", 0.0)));
      const json sets = cur.value("sets", json::object());
      const json before_sets = before.value("sets", json::object());
      for (const auto& [set, r] : sets.items()) {
        if (!before_sets.contains(set)) continue;
        const json& b = before_sets[set];
        if (b.value("disposition", "") == "passed" && r.value("disposition", "") != "passed")
          out.push_back(fmt::format("{} {}: newly {}", kernel, set, r.value("disposition", "?")));
        if (r.contains("max") && b.contains("max") && r["max"].is_number() && b["max"].is_number() &&
            r.value("elements", 0) >= 65536 && r["max"].get<double>() > 1.25 * b["max"].get<double>() + 0.25)
          out.push_back(fmt::format("{} {}: max error {:.3g} (was {:.3g}) x 2^-24 S", kernel, set, r["max"].get<double>(),
                                    b["max"].get<double>()));
      }
    }
  }
  const json before_golden = previous.value("golden", json::object()).value("results", json::array());
  for (const json& g : now.value("golden", json::object()).value("results", json::array()))
    for (const json& b : before_golden)
      if (b.value("problem", "") == g.value("problem", "") && b.value("disposition", "") == "passed" &&
          g.value("disposition", "") != "passed")
        out.push_back(fmt::format("golden {}: newly {}", g.value("problem", "?"), g.value("disposition", "?")));
  const json ps = previous.value("sweep", json::object()), ns = now.value("sweep", json::object());
  if (ns.value("ran", false) && ps.value("ran", false) &&
      ns.value("max_scaled_error", 0.0) > 1.5 * ps.value("max_scaled_error", 0.0) + 0.5)
    out.push_back(fmt::format("sweep: max error {:.3g}, was {:.3g}", ns.value("max_scaled_error", 0.0),
                              ps.value("max_scaled_error", 0.0)));
  return out;
}

std::uint64_t nightly_seed(const std::string& date) { return fnv1a64(date) & 0xffffffff; }

}  // namespace rope2d::verify
