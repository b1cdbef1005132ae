// Running the night: shard i of N's work in this process (the verifier runs as child processes,
// the golden problems against the reference, the sincosf premise (shard 0's: nightly_premise.hpp),
// its range of the angle sweep); one shard per GPU
// is nightly_gpus.hpp. `rope2d nightly` is options and wiring around these; the GPU work comes
// from the program (NightlyGpu), as it needs CUDA.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/testbed/device.hpp"
#include "products/nightly/nightly_shard.hpp"
#include "products/sweep/sweep.hpp"

namespace rope2d::verify {

struct NightlyOptions {
  std::string config, root = "reports/nightly";
  std::string golden;  // the golden set checked against the reference (the CLI: the program's own); empty: none
  std::string sincosf_measurement;  // a sincosf_ulp --json file compared with the premise instead of measuring; empty: measure
  bool quick = false, quiet = false;
  std::string program;  // this program's path: the children run `program verify` and `program nightly`
};

// The GPU, from the CUDA libraries; each empty in a build without CUDA (then nothing runs there).
struct NightlyGpu {
  std::function<DeviceInfo()> probe;
  std::function<int()> count;
  std::function<SweepResult(const SweepOptions&, const SweepProgress&)> sweep;  // this project's kernel
};

// Progress: step i of n, what runs.
using NightlyStep = std::function<void(std::size_t i, std::size_t n, const std::string& what)>;

// The plan of the night (nightly_plan) of the options' config, golden set and sincosf
// measurement (read and checked here, before any work: a malformed one is bad input).
nlohmann::json nightly_plan_of(const NightlyOptions& o);

// "shard-i-of-N.json".
std::string shard_file(ShardId s);

// Shard s's work, its result as merge_nightly_shards reads it. Files (verifier reports, logs,
// the sweep's files) go under <root>/<date>/.
nlohmann::json run_nightly_shard(const NightlyOptions& o, const nlohmann::json& plan, ShardId s, const std::string& date,
                                 const NightlyGpu& gpu, const NightlyStep& step);

}  // namespace rope2d::verify
