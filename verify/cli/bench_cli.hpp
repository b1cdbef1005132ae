// The pieces of `rope2d bench` beside its workload loop (cmd_bench.cpp): its options, the
// PyTorch peers and the paired comparison with torch.compile (bench_peers.cpp), and the timings
// of the kernel's configurations (bench_variants.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/testbed/timing.hpp"

namespace rope2d::cli {

struct BenchArgs {
  std::string json_path;
  bool torch = false;
  bool variants = false;
  std::string python = "python3";
  std::string library;  // the project's kernel as a shared object, for the paired comparison
  int runs = 50, warmup = 10;
};

// librope2d_kernel.so beside the program (a device bundle), in the build tree's cuda/, or in an
// installed tree's lib/; "" when none.
std::string find_kernel_library();
// The torch peers' timings of the 16 workloads (rope2d.bench_torch); throws
// std::runtime_error when the script fails.
nlohmann::json run_torch(const BenchArgs& a);
// A figure of the torch peers' JSON, NaN where absent.
double peer(const nlohmann::json& row, const char* impl, const char* clock);
// The paired comparison's columns of one workload; false when rope2d is not faster there.
bool paired_columns(const nlohmann::json& trow, nlohmann::ordered_json& row, std::string& line);
// The idx_theta kernel's configurations timed on the workloads (a table to stdout, rows returned).
nlohmann::ordered_json time_variants(verify::Timer& timer, bool clock, const verify::TimingOptions& topt);

}  // namespace rope2d::cli
