// Running the night: shard i of N's work in this process (the verifier runs as child processes,
// the golden problems against the reference, its range of the angle sweep), and one shard per
// GPU as child processes, merged into the night's report. `rope2d nightly` is options and
// wiring around these; the GPU work comes from the program (NightlyGpu), as it needs CUDA.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rope2d/verify/device.hpp"
#include "rope2d/verify/nightly_shard.hpp"
#include "rope2d/verify/sweep.hpp"

namespace rope2d::verify {

struct NightlyOptions {
  std::string config, root = "reports/nightly", golden = "data/golden-smoke";
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

// The plan of the night (nightly_plan) of the options' config and golden set.
nlohmann::json nightly_plan_of(const NightlyOptions& o);

// "shard-i-of-N.json".
std::string shard_file(ShardId s);

// Shard s's work, its result as merge_nightly_shards reads it. Files (verifier reports, logs,
// the sweep's files) go under <root>/<date>/.
nlohmann::json run_nightly_shard(const NightlyOptions& o, const nlohmann::json& plan, ShardId s, const std::string& date,
                                 const NightlyGpu& gpu, const NightlyStep& step);

// --gpus: "all" (each of `present` GPUs) or device ids like "0,2", each once and below present
// (when present > 0). Throws std::invalid_argument naming --gpus.
std::vector<int> gpu_list(const std::string& spec, int present);

// One shard per GPU of `ids` (shard i sees GPU ids[i] only), as `program nightly --shard i/N`
// child processes, then their merge and the night's report. False when a shard left no result
// (said on stderr with its log) or the night did not pass.
bool run_nightly_on_gpus(const NightlyOptions& o, const std::string& date, const std::vector<int>& ids);

}  // namespace rope2d::verify
