// The night on several GPUs of one machine: one shard per GPU as a child process of this
// program (`nightly --shard i/N`, seeing its GPU only), then their merge and the night's report.
#pragma once

#include <string>
#include <vector>

#include "products/nightly/nightly_run.hpp"

namespace rope2d::verify {

// --gpus: "all" (each of `present` GPUs) or device ids like "0,2", each once and below present
// (when present > 0). Throws std::invalid_argument naming --gpus.
std::vector<int> gpu_list(const std::string& spec, int present);

// One shard per GPU of `ids` (shard i sees GPU ids[i] only), as `program nightly --shard i/N`
// child processes, then their merge and the night's report. False when a shard left no result
// (said on stderr with its log) or the night did not pass.
bool run_nightly_on_gpus(const NightlyOptions& o, const std::string& date, const std::vector<int>& ids);

}  // namespace rope2d::verify
