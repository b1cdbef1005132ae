// SOL-ExecBench's correctness rules for one output tensor, ported line for line from
// src/sol_execbench/core/bench/correctness.py (upstream 8d2237d2012cba81f64905b273b592653623abf9):
// check_tensor_sanity then compute_error_stats, in float32 arithmetic as PyTorch does them. The
// solexecbench tier (metrics.cpp) applies the same element rules set by set; this whole-tensor
// form judges the golden export and is the tier's oracle in tests.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "rope2d/verify/model/tolerance_core.hpp"

namespace rope2d::verify {

// workload.jsonl's ToleranceSpec (atol and rtol as float32, as PyTorch uses them on float32).
struct SxbTolerance {
  float atol = core::sxb_atol, rtol = core::sxb_rtol;
  double required_matched_ratio = 0.99;
  std::optional<double> max_error_cap;
  bool allow_negative_inf = false;
};

// What compute_error_stats returns: its Correctness fields and `exceeds` (the tensor fails).
struct SxbStats {
  bool exceeds = false;
  bool has_nan = false, has_inf = false;  // the sanity check failed on NaN (else Inf)
  bool all_zero = false;                  // the sanity check failed on an all-zero output
  double max_abs = 0, max_rel = 0;
  std::int64_t over = 0;  // elements over atol + rtol |ref| (0 when the sanity check failed)
  double matched_ratio = 1;
};

// out and ref of equal length (std::invalid_argument otherwise).
SxbStats sxb_error_stats(std::span<const float> out, std::span<const float> ref, const SxbTolerance& tol = {});

// Why SOL-ExecBench's harness could fail the exact result of a problem given as the output,
// judged against its own float32 evaluation of the reference (one within the float32-bound
// tier's proven bound of the exact value); "" when it cannot. exact: the correctly rounded
// results; scale: S = |gc sin t| + |gs cos t| of each element.
std::string sxb_export_exclusion(std::span<const float> exact, std::span<const double> scale, const SxbTolerance& tol = {});

}  // namespace rope2d::verify
