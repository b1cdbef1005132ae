// Named sets of problems: the 16 SOL-ExecBench workloads and the extra sets the verifier,
// the golden-data generator and the nightly run draw from.
#pragma once

#include <string>
#include <vector>

#include "rope2d/verify/problem.hpp"

namespace rope2d::verify {

struct Workload {
  std::int64_t batch, seq_len;
};

// SOL-ExecBench 090_batched_2d_rope_position_encoding_backward, workload.jsonl order.
const std::vector<Workload>& benchmark_workloads();

struct SuiteOptions {
  std::vector<ref::Dtype> grad_dtypes{ref::Dtype::bf16};
  std::uint64_t seed = 1;
  bool quick = false;        // smaller shapes for CPU-only runs and tests
  std::int64_t long_seq = 131072;
};

// Every set: randn and layout angles over the 16 workload shapes, a long real layout,
// each hard regime, and odd sizes and misaligned views.
std::vector<ProblemSpec> verification_suite(const SuiteOptions& o);
// Only the 16 workloads with randn inputs (what SOL-ExecBench draws).
std::vector<ProblemSpec> benchmark_suite(const SuiteOptions& o);
// A small set covering every kind of input, a few MB: the one committed under data/.
std::vector<ProblemSpec> smoke_suite(const SuiteOptions& o);

// "bf16", "fp16", "fp32" (command-line lists); throws std::invalid_argument naming the option.
std::vector<ref::Dtype> parse_grad_dtypes(const std::vector<std::string>& names, const std::string& option);

}  // namespace rope2d::verify
