// SOL-ExecBench's per-workload score S = 1 / (1 + (T - T_SOL) / (T_b - T_SOL)).
//
// PROBLEM.md gives the anchors only as geometric means over the 16 workloads, on a B200:
// T_SOL 0.001736 ms and the scoring baseline T_b 0.049184 ms. Per workload we scale both by
// the workload's bytes over the geometric mean of the bytes (the op is memory-bound, so its
// speed-of-light time is proportional to its bytes). The score is therefore an estimate, and
// one made with B200 anchors: on another GPU it compares against that GPU's own times.
#pragma once

#include <cmath>
#include <vector>

namespace rope2d::verify {

inline constexpr double sol_geomean_ms = 0.001736;
inline constexpr double baseline_geomean_ms = 0.049184;

struct SolAnchors {
  double t_sol_ms, t_b_ms;
};

inline SolAnchors sol_anchors(double bytes, double geomean_bytes) {
  const double f = bytes / geomean_bytes;
  return {sol_geomean_ms * f, baseline_geomean_ms * f};
}

inline double sol_score(double t_ms, const SolAnchors& a) {
  return 1.0 / (1.0 + (t_ms - a.t_sol_ms) / (a.t_b_ms - a.t_sol_ms));
}

inline double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / v.size());
}

}  // namespace rope2d::verify
