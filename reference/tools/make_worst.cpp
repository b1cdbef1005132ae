// Generates the committed worst-case lists (reference/worst/), each with its command in the
// header:
//   make_worst near-axis MAX_BINADE PER_BINADE   the float32 angles nearest to k*pi/2
//   make_worst float32-eval SEED DRAWS KEEP      the inputs where the honest float32 evaluation
//                                                (glibc sinf/cosf, products, sum) comes nearest
//                                                to its proven bound, KEEP per regime
//   make_worst known                             the counterexamples that shaped the tolerance
//                                                table (premise, flush-to-zero, overflow)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "rope2d/ref/float32_bound.hpp"
#include "rope2d/ref/overflow.hpp"
#include "rope2d/ref/regimes.hpp"
#include "rope2d/ref/worst_list.hpp"

using namespace rope2d::ref;

namespace {

std::string command(int argc, char** argv) {
  std::string s = " made by: make_worst";  // reference/tools/make_worst.cpp
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

int near_axis(int max_binade, int per_binade, const std::string& cmd) {
  std::vector<std::vector<double>> cases;
  for (float t : nearest_axis_angles(max_binade, per_binade)) cases.push_back({t});
  std::fputs(format_worst_list({cmd, " The float32 angles t in [2^e, 2^(e+1)), e = 0.." + std::to_string(max_binade - 1) +
                                      ", nearest to a multiple of pi/2 (sin t or cos t tiny),",
                                  " the " + std::to_string(per_binade) + " nearest of each binade; one angle per line."},
                                 cases, {true}).c_str(),
             stdout);
  return 0;
}

// The honest float32 evaluation: glibc's sinf/cosf (within 1 ulp of the correctly rounded
// value, glibc's manual), exact widening, two products and a sum (no contraction here).
float float32_eval(const Element& e) {
  const float s = std::sin(e.t), c = std::cos(e.t);
  return -static_cast<float>(e.gc) * s + static_cast<float>(e.gs) * c;
}

int float32_eval_list(std::uint64_t seed, int draws, int keep, const std::string& cmd) {
  const Float32Bound bound = float32_bound(1.0);
  std::vector<std::vector<double>> cases;
  for (Regime r : {Regime::randn, Regime::layout, Regime::large_angle, Regime::near_axis, Regime::cancellation,
                   Regime::subnormal}) {
    Random rng(seed + static_cast<std::uint64_t>(r));
    std::vector<std::pair<double, Element>> best;
    for (int i = 0; i < draws; ++i) {
      const Element e = draw(r, rng, Dtype::bf16);
      const double exact = unrounded_value(e);
      const double ratio = std::fabs(float32_eval(e) - exact) / allowed_error(bound, condition_scale(e), exact, e.gc);
      best.push_back({ratio, e});
      std::push_heap(best.begin(), best.end(), [](auto& a, auto& b) { return a.first > b.first; });
      if (static_cast<int>(best.size()) > keep) {
        std::pop_heap(best.begin(), best.end(), [](auto& a, auto& b) { return a.first > b.first; });
        best.pop_back();
      }
    }
    std::sort(best.begin(), best.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (const auto& [ratio, e] : best) cases.push_back({e.gc, e.gs, static_cast<double>(e.t)});
  }
  std::fputs(format_worst_list({cmd, " Inputs \"gc gs t\" (bf16 grads, float32 angle) where the float32 evaluation with glibc",
                                  " sinf/cosf comes nearest to its proven bound (c(1), FLOAT32_BOUND.md), the " +
                                      std::to_string(keep) + " worst of " + std::to_string(draws) + " draws",
                                  " per regime: randn, layout, large_angle, near_axis, cancellation, subnormal."},
                                 cases, {true, true, true}).c_str(),
             stdout);
  return 0;
}

// Each was a counterexample to an earlier tolerance table; kept so every later table replays them.
int known(const std::string& cmd) {
  const std::vector<std::vector<double>> cases = {
      // sinf and cosf 2 ulp from their correctly rounded values: over the bound derived from
      // "2 ulp from the exact value".
      {-0x1.167fd4p+0, 0x1.3f836cp-23, 0x1.000032p-8},
      // Triton flushes this subnormal angle inside sin/cos and keeps the subnormal product.
      {-0x1.f4p-1, -0x1.cp-131, -0x1.99f1b8p-128},
      // The reference is FLT_MAX; an honest float32 evaluation overflows to +inf.
      {-0x1p+127, 0x1.fffffep+127, 0x1p-24},
  };
  std::fputs(format_worst_list({cmd, " Inputs \"gc gs t\" that were counterexamples to earlier tolerance tables: the",
                                  " float32-bound tier's premise, flush-to-zero of a subnormal angle, overflow to inf."},
                                 cases, {true, true, true}).c_str(),
             stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "near-axis" && argc == 4) return near_axis(std::stoi(argv[2]), std::stoi(argv[3]), command(argc, argv));
  if (mode == "float32-eval" && argc == 5)
    return float32_eval_list(std::stoull(argv[2]), std::stoi(argv[3]), std::stoi(argv[4]), command(argc, argv));
  if (mode == "known" && argc == 2) return known(command(argc, argv));
  std::fprintf(stderr, "usage: make_worst near-axis MAX_BINADE PER_BINADE | float32-eval SEED DRAWS KEEP | known\n");
  return 2;
}
