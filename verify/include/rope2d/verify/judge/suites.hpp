// Named sets of problems: the 16 SOL-ExecBench workloads and the extra sets the verifier,
// the golden-data generator and the nightly run draw from.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rope2d/verify/model/problem.hpp"

namespace rope2d::verify {

struct Workload {
  std::int64_t batch, seq_len;
};

// SOL-ExecBench 090_batched_2d_rope_position_encoding_backward, workload.jsonl order.
const std::vector<Workload>& benchmark_workloads();

struct SuiteOptions {
  std::vector<ref::Dtype> grad_dtypes{ref::Dtype::bf16};
  std::uint64_t seed = 1;   // base seed, mixed with each set's name
  bool quick = false;        // smaller shapes for CPU-only runs and tests
  std::int64_t long_seq = 131072;
  // The worst-case lists (reference/worst/): a "worst" set per dtype in the verification suite
  // (judged through suite_problem, worst.hpp); empty: no worst set.
  std::string worst_dir;
};

// Every set, for each grad dtype: randn angles over the 16 workload shapes, each hard regime,
// the special-value cross product, the size sweep (set "odd": n = 0, every n to 80, every
// residue mod 256, block and grid boundaries up to 2^24 + 1) and placement (set "place": all
// 4^4 pointer offsets, random ones on large n; set "flush": inputs ending at their
// allocation's end). The first dtype also gets layout angles over the workloads and a long
// layout, and the full workload sizes and sweeps (the others, and --quick, thinner ones).
// With worst_dir, the committed worst-case elements as set "worst". Seeds from each set's name.
std::vector<ProblemSpec> verification_suite(const SuiteOptions& o);
// Only the 16 workloads with randn inputs (what SOL-ExecBench draws).
std::vector<ProblemSpec> benchmark_suite(const SuiteOptions& o);
// What --sanitize runs under each compute-sanitizer tool: a few thousand elements per dtype
// over small sizes, each pointer offset alone, inputs flush with their allocation end, and
// special values (the tools slow calls by tens of times).
std::vector<ProblemSpec> sanitize_suite(const SuiteOptions& o);
// A small set covering every kind of input, a few MB: the one committed under data/.
std::vector<ProblemSpec> smoke_suite(const SuiteOptions& o);

// The suites a user names (`rope2d golden --suite`, the C API's and rope2d.verify's "suite"),
// one row each in suites.cpp: a new problem set is its function and its row.
struct NamedSuite {
  std::string_view name;
  std::string_view what;  // for help text
  std::vector<ProblemSpec> (*make)(const SuiteOptions&);
};
std::span<const NamedSuite> named_suites();
// The suite called `name`; std::invalid_argument naming `option`, the names known and `name`
// otherwise.
const NamedSuite& suite_named(std::string_view name, const std::string& option);
// "smoke, benchmark or verification", for help and messages.
std::string suite_names();

// "bf16", "fp16", "fp32" (command-line lists); throws std::invalid_argument naming the option.
std::vector<ref::Dtype> parse_grad_dtypes(const std::vector<std::string>& names, const std::string& option);
// The dtypes' names in their order, `separator` between them: "bf16,fp32" as a command line
// gives them (parse_grad_dtypes reads it back), or "bf16, fp32" in a message.
std::string grad_dtype_list(const std::vector<ref::Dtype>& dtypes, std::string_view separator = ",");

}  // namespace rope2d::verify
