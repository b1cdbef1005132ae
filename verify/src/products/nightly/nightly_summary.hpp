// The night's results as types: a verifier run, a golden problem, a sweep range, the sincosf
// premise (what a shard writes for each of its items) and the summary the merge makes of them (summary.json), each
// with to_json / from_json. The JSON keys of the nightly are spelled here and nowhere else.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/verify/model/disposition.hpp"
#include "products/sweep/sweep.hpp"  // SweepGrads, SweepResult

namespace rope2d::verify {

// One set of a verifier run: its disposition, max error (x 2^-24 S; none when not finite) and
// element count.
struct NightSet {
  Disposition disposition = Disposition::failed;
  std::optional<double> max;
  std::int64_t elements = 0;
};

// One verifier run of a kernel and grad dtype. Without a report (no GPU, or it failed before
// writing one) the verdict comes from the exit code and there are no sets.
struct NightVerify {
  std::string kernel;
  std::optional<ref::Dtype> grad_dtype;  // absent in summaries from before one run per dtype
  int exit = 0;
  std::optional<double> seconds;  // absent in some older summaries: then never slower
  bool report = false;
  Disposition verdict = Disposition::failed;
  std::map<std::string, NightSet> sets;  // by set name
};
// Its grad dtype's name, or `none` for a summary from before one run per dtype.
std::string dtype_label(const NightVerify& v, std::string_view none = "");
// A grad dtype's name as the nightly's files hold it, read once: an unknown one names `field`.
ref::Dtype night_dtype(const nlohmann::json& name, const std::string& field);

// One golden problem recomputed by the reference.
struct NightGolden {
  std::string file, problem;
  Disposition disposition = Disposition::failed;
  std::string integrity;
  std::int64_t elements = 0;
  std::optional<double> max;
  std::optional<std::string> worst;  // its failure line
};

// The worst element of a sweep (grad: its grad pair's position in the plan).
struct NightSweepWorst {
  double angle = 0;
  std::uint32_t angle_bits = 0;
  int grad = 0;
  double gc = 0, gs = 0, ref = 0, got = 0, scaled_error = 0;
};

// One shard's range [lo, hi) of the angle sweep.
struct NightSweepRange {
  std::uint64_t lo = 0, hi = 0;
  bool ran = false;
  std::string skipped;
  std::int64_t angles = 0;
  bool complete = false;
  double reached = 0;
  std::optional<std::uint64_t> next;
  double seconds = 0;
  std::int64_t count = 0, correctly_rounded = 0;
  double max_scaled_error = 0;
  std::int64_t over_float32_bound = 0;
  std::optional<NightSweepWorst> worst;
};

// The range's result of a sweep with the plan's grad pairs (none of it run when !r.ran).
NightSweepRange night_sweep_range(const SweepResult& r, std::uint64_t lo, std::uint64_t hi,
                                  const std::vector<SweepGrads>& grads);

// The night's sweep: its ranges merged (sums of counts, the largest error and its element).
struct NightSweep {
  double from = 0, to = 0;
  std::uint64_t lo = 0, hi = 0;
  std::vector<SweepGrads> grads;
  std::vector<NightSweepRange> ranges;
  bool ran = false;
  std::string skipped;
  bool complete = false;
  double reached = 0;
  std::int64_t angles = 0;
  double seconds = 0;
  std::int64_t count = 0;
  double max_scaled_error = 0;
  std::int64_t over_float32_bound = 0;  // also written as over_strict, the old name, for old readers
  double correctly_rounded_fraction = 0;
  std::optional<NightSweepWorst> worst;
};

// One function's figures in the night's measurement of sinf / cosf / sincosf (as
// sincosf_premise.hpp reads them from sincosf_ulp's file).
struct NightPremiseFigures {
  std::string function;
  std::int64_t floats = 0;        // the most floats from the correctly rounded value
  double ulp = 0, mpfr_ulp = 0;   // the most ulp from the exact value, and its MPFR re-check
  std::string at_x;               // where, a C99 hex float
  std::int64_t outside = 0;       // results outside [-1, 1]
};

// The sincosf premise of the night: CUDA's sinf / cosf / sincosf measured over every float32
// input on this GPU (sincosf_ulp), or a measurement given instead (--sincosf-measurement),
// against the premise the float32 bound is proved under. passed: every figure within it;
// incorrect: one exceeds it (`exceeded` says which, measured against the premise); failed: the
// program was not found, did not finish or failed, or its measurement did not read (`reason`);
// skipped: no GPU to measure (`reason`): nothing is known of the premise tonight.
struct NightPremise {
  Disposition disposition = Disposition::skipped;
  std::string reason;
  std::string program;  // the sincosf_ulp that ran ("" when none did)
  std::string file;     // the measurement compared: <night>/sincosf_ulp.json, or the one given
  bool given = false;   // file was given, not measured tonight
  double k_ulp = 0;     // the premise compared with: k of float32_bound.hpp's cuda_sincosf_bound
  double seconds = 0;
  std::string device, cuda_runtime, cuda_driver, date;  // of the measurement
  std::vector<NightPremiseFigures> functions;
  std::vector<std::string> exceeded;  // one sentence per figure over the premise
};

struct NightGoldenPart {
  std::string dir, skipped;  // skipped: why no problem was checked ("" when some were)
  std::vector<NightGolden> results;
};

// summary.json: the merge of a night's shards, then its comparison with the night before.
struct NightSummary {
  std::string date, commit, config_digest;
  std::optional<std::uint64_t> seed;
  int shards = 1;
  bool gpu = false;
  std::vector<NightVerify> verify;  // in plan order
  NightGoldenPart golden;
  NightSweep sweep;
  std::optional<NightPremise> premise;   // absent in summaries of builds before the premise item
  std::vector<std::string> problems;     // what failed tonight, one sentence each
  std::vector<std::string> regressions;  // what got worse since `previous`
  std::vector<std::string> warnings;     // e.g. an earlier summary set aside as unreadable
  std::string status;                    // "passed", "skipped (no GPU)" or "FAILED"
  std::optional<std::string> previous;   // the date of the night compared with
  std::optional<std::vector<int>> gpus;  // --gpus: the devices, and the wall time
  std::optional<double> wall_seconds;
};

nlohmann::json to_json(const NightVerify& v);
nlohmann::json to_json(const NightGolden& g);
nlohmann::json to_json(const NightSweepRange& r);
nlohmann::json to_json(const NightSweep& s);
nlohmann::json to_json(const NightPremise& p);
nlohmann::json to_json(const NightSummary& s);

// Each reads what to_json writes; `at` names the value in messages ("verify[2]"). A missing key
// takes the default above (summaries of older builds lack some: check their shape first,
// nightly_input.hpp). A key of another type throws nlohmann::json::exception; a disposition
// that names none std::invalid_argument naming the field (at.sets["randn/bf16"].disposition).
NightVerify night_verify_from_json(const nlohmann::json& j, const std::string& at = "verify[0]");
NightGolden night_golden_from_json(const nlohmann::json& j, const std::string& at = "golden.results[0]");
NightSweepRange night_sweep_range_from_json(const nlohmann::json& j);
NightSweep night_sweep_from_json(const nlohmann::json& j);
NightPremise night_premise_from_json(const nlohmann::json& j, const std::string& at = "premise");
NightSummary night_summary_from_json(const nlohmann::json& j);

}  // namespace rope2d::verify
