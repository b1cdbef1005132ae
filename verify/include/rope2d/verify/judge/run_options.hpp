// The options of a `rope2d verify` run that decide which problems it judges and how: the
// problem selection (suite, grad dtypes, seed, quick, --only) and the reproduce line of a set,
// which carries every one of them, shell-quoted, so it replays exactly that set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/model/tier.hpp"

namespace rope2d::verify {

struct RunOptions {
  std::string submission;                // empty: the project's kernel
  std::vector<ref::Dtype> grad_dtypes{ref::Dtype::bf16, ref::Dtype::fp16, ref::Dtype::fp32};  // in order: the first gets the full sizes
  Tier tier = Tier::float32_bound;      // the gate (its name in reproduce lines)
  std::uint64_t seed = 1;
  int rounds = 2;
  bool quick = false;
  std::string nvcc = "nvcc";
  std::vector<std::string> nvcc_flags;
  bool sanitize_set = false;  // the reduced set --sanitize runs under compute-sanitizer
  bool ieee_subnormals = false;  // --ieee-subnormals: flushing a subnormal value fails
  std::string worst_dir;         // the worst-case lists (found in the repository, not a reproduce option)
};

// The verification suite of these options; with `only`, just the problem of that name (a
// fused set's name "fused:NAME" selects NAME). Throws std::invalid_argument naming --only when
// `only` names no problem.
std::vector<ProblemSpec> select_problems(const RunOptions& o, const std::string& only = "");

// The arguments after `rope2d verify` that rerun exactly `problem` (a set name, plain or
// fused) with the same seeds, dtypes, tier, rounds and compile flags.
std::vector<std::string> reproduce_args(const RunOptions& o, const std::string& problem);
// "rope2d verify ARGS...", each argument shell-quoted where it needs it (shell_quote).
std::string reproduce_line(const RunOptions& o, const std::string& problem);

}  // namespace rope2d::verify
