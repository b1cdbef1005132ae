// The night's measurement of the premise the float32 bound is proved under (shard 0's item):
// with a GPU, sincosf_ulp measures CUDA's sinf / cosf / sincosf over every float32 input in its
// own process, with a time limit, into the night's folder (sincosf_ulp.json, its output in
// sincosf_ulp.log), and the measurement is compared with the premise compiled into
// float32_bound.hpp (the reference's sincosf_premise.hpp, as premise_check compares). A
// measurement named by the plan (--sincosf-measurement) is compared instead, GPU or not.
// Without either, the item is skipped and says so: never passed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/testbed/device.hpp"
#include "products/nightly/nightly_summary.hpp"

namespace rope2d::verify {

// How long sincosf_ulp may run before it is killed and the item failed: on an H200 it takes
// 0.1 s of GPU time and an MPFR re-check of four arguments; the rest is starting CUDA.
inline constexpr double sincosf_ulp_time_limit_s = 300;

// One function's figures against the premise k, one sentence per figure over it naming the
// function, the figure and the premise (the reference's premise_excesses): what the night's
// failures, table and junit.xml say, from the figures a shard recorded.
std::vector<std::string> night_premise_excesses(const NightPremiseFigures& f, double k_ulp);

// The measurement in `file` against the premise: passed or incorrect (each figure over the
// premise in `exceeded`), or failed when the file does not read (its message names the file and
// the field). `given`: named by the plan, not measured tonight.
NightPremise compare_premise(const std::string& file, bool given);

// Runs `program --json <dir>/sincosf_ulp.json` (stdout and stderr to <dir>/sincosf_ulp.log)
// within time_limit_s and compares what it wrote. Failed, naming the program and its log, when
// it does not start, is killed at the limit, exits other than 0 or 1 (1: it found the premise
// broken itself; 77: it found no GPU where the night found one), writes no measurement, or
// exits 1 over a measurement within the premise.
NightPremise measure_premise(const std::string& program, const std::string& dir, double time_limit_s = sincosf_ulp_time_limit_s);

// The premise item of a shard whose night's folder is dir: the plan's given measurement; else,
// with a GPU, sincosf_ulp found beside the program at `self` or under its install prefix
// (find_own_program; self empty: this program), failed naming where it looked when it is not
// there; else skipped with the device's reason.
NightPremise night_premise(const nlohmann::json& plan, const DeviceInfo& dev, const std::string& dir, const std::string& self = "");

}  // namespace rope2d::verify
