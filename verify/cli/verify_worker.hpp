// The two halves of `rope2d verify`: the supervising parent (cmd_verify.cpp: options, time
// limits, CPU-only fallback, reports of crashed runs) and the worker it forks, which does all
// GPU work (verify_worker.cpp) and reports to the parent in the messages of
// rope2d/verify/worker_protocol.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rope2d/verify/problem.hpp"
#include "rope2d/verify/run_options.hpp"
#include "rope2d/verify/tolerance.hpp"
#include "rope2d/verify/worker_protocol.hpp"

namespace rope2d::cli {

struct VerifyArgs {
  std::string submission, out_dir, tier = "strict", nvcc = "nvcc", only, golden = "data/golden-smoke";
  std::vector<std::string> nvcc_flags, dtypes{"bf16"};
  bool quick = false, quiet = false, bench = false, list = false;
  std::uint64_t seed = 1;
  int rounds = 2;
  double call_timeout = 20;

  // What selects and judges the problems (and goes into every reproduce line).
  verify::RunOptions options() const {
    return {submission, dtypes, tier, seed, rounds, quick, nvcc, nvcc_flags};
  }
};

bool is_solution(const std::string& path);

// Everything that touches CUDA; writes the report itself when it finishes.
int verify_worker(const VerifyArgs& a, const std::vector<verify::ProblemSpec>& specs, verify::Tier gate, int fd);

}  // namespace rope2d::cli
