// The nightly run split into shards and merged again. A plan (the config made explicit: the
// kernels, grad dtypes, the golden set's problems, the sweep's range of angle bit patterns)
// lists the work; shard i of N takes the items the stable rule below gives it and writes a
// shard result; merging checks that the shard results belong together and cover the plan
// exactly, then makes one summary, the same as one process running everything would.
//
// The rule (stable: adding a submission or a golden problem moves no other item):
//   verifier run (kernel, dtype)  ->  (FNV-1a(kernel name) + dtype's position in bf16, fp16,
//                                     fp32) mod N: a kernel's dtypes land on different shards;
//   golden problem file           ->  FNV-1a(file name) mod N;
//   sweep over bit patterns [lo, hi) ->  shard i checks split_range(lo, hi, i, N), every grad pair;
//   the sincosf premise           ->  shard 0 (one measurement a night: nightly_premise.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "codec/nightly_config.hpp"
#include "products/nightly/nightly_input.hpp"  // nightly_shard_schema
#include "products/nightly/nightly_summary.hpp"
#include "products/sweep/sweep.hpp"  // split_range, the sweep's grad pairs

namespace rope2d::verify {

struct ShardId {
  int index = 0, count = 1;
};

// "i/N" with 0 <= i < N <= 4096; throws std::invalid_argument naming `option`.
ShardId parse_shard(const std::string& text, const std::string& option = "--shard");

// FNV-1a, 64 bits.
std::uint64_t fnv1a64(std::string_view s);

// The plan of a night: {"submissions": [paths], "grad_dtypes": [...], "golden": {"dir", "files"},
// "premise": {"measurement"}, "sweep": {"from", "to", "lo", "hi", "grads", "budget_s"}, "quick"}.
// lo and hi are the bit patterns of the swept float32 angles (hi exclusive; 2^32 for "angles":
// "all"; --quick sweeps a sample of the range); grads are [gc, gs, name]. The premise's
// measurement is a file to compare instead of measuring (--sincosf-measurement), or "".
nlohmann::json nightly_plan(const NightlyConfig& c, bool quick, const std::string& golden_dir,
                            const std::vector<std::string>& golden_files, const std::string& sincosf_measurement = "");

// Shard s's work items, in the plan's order: {"kind": "verify", "kernel", "path", "grad_dtype"},
// {"kind": "golden", "file"}, {"kind": "premise"} (shard 0), {"kind": "sweep", "lo", "hi"}.
std::vector<nlohmann::json> nightly_items(const nlohmann::json& plan, ShardId s);

// The digest a shard result carries of its plan (FNV-1a 64 of its compact JSON, hex).
std::string plan_digest(const nlohmann::json& plan);

// Combines shard results (file name, parsed JSON) into one summary (nightly_summary.hpp): its
// verifier runs in plan order, golden problems, the sweep merged (with its ranges), the premise
// (shard 0's) and the problems; regressions and status are the report's (nightly_report.hpp). Refuses, with std::invalid_argument naming the file and field, a result
// that is not a shard result, shards of different commits, plans, dates or counts, a duplicate
// or missing shard, and a shard whose items or results are not its share of the plan.
NightSummary merge_nightly_shards(const std::vector<std::pair<std::string, nlohmann::json>>& shards);

// The plan's sweep grad pairs ([gc, gs, name] each); throws nlohmann::json::exception when
// the plan holds no such list.
std::vector<SweepGrads> plan_sweep_grads(const nlohmann::json& plan);

// The folder under a night's that holds the sweep files of bit patterns [lo, hi)
// ("sweep-0x0-0x46800000"): each shard's range, and the whole range for one process.
std::string sweep_folder(std::uint64_t lo, std::uint64_t hi);

// The worst-case list a shard's sweep of `range` ({lo, hi} of its result) wrote beside the
// shard file.
std::string shard_sweep_list(const std::string& shard_file, const nlohmann::json& range);

// The night's worst-case list (sweep_worst.hpp) joined from the lists the shards' sweeps wrote
// beside their results (<the shard file's folder>/sweep_folder(lo, hi)/sweep_worst.txt): what one
// process sweeping the plan's whole range would have written from the same elements (a --quick
// night samples each shard's range on its own, so not there), `keep`
// cases per grad pair, its header naming the shards, their devices and the longest shard's time.
// Empty when a range did not run (no GPU): then no shard wrote a list, and one process would
// not either. For shard results merge_nightly_shards accepted; throws std::invalid_argument
// naming the list (and its line) when one is missing, malformed, or not its shard's sweep.
std::string merge_sweep_worst_lists(const std::vector<std::pair<std::string, nlohmann::json>>& shards, std::size_t keep);

}  // namespace rope2d::verify
