// Shapes of a shard's result and of a previous summary, and their readers (nightly_input.hpp).
#include "rope2d/verify/nightly_input.hpp"

#include <filesystem>
#include <stdexcept>

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/atomic_file.hpp"
#include "rope2d/verify/json_shape.hpp"

namespace rope2d::verify {

using nlohmann::json;

namespace {

// What rope2d nightly --shard writes (run_shard) and merge_nightly_shards, the report and the
// worst-list join read. Extra keys are allowed (a newer writer); missing or mistyped are not,
// but for the premise, which shards of builds before it lack (their plans have no such item).
const json& shard_shape() {
  static const json shape = json::parse(R"({
    "schema": "string", "commit": "string:200", "config_digest": "string:200", "date": "string",
    "seed?": "uint|null", "gpu?": "bool", "cuda_visible_devices?": "string|null",
    "shard": {"index": "int:0:4095", "count": "int:1:4096"},
    "config": {"submissions": ["string"], "grad_dtypes": ["string"], "quick?": "bool",
               "golden": {"dir": "string", "files": ["string"]}, "premise?": {"measurement": "string:4096"},
               "sweep": {"from": "number", "to": "number", "lo": "uint", "hi": "uint", "chunk": "uint",
                         "budget_s": "number", "grads": [["number", "number", "string"]]}},
    "items": ["object"],
    "verify": [{"kernel": "string:4096", "grad_dtype": "string:16", "exit": "int", "seconds": "number:0:1e7", "report": "bool",
                "verdict": "string", "sets?": {"*": {"disposition": "string", "max": "number|null", "elements": "int"}}}],
    "golden": {"results": [{"file": "string", "problem": "string", "disposition": "string", "integrity": "string",
                            "elements?": "int", "max?": "number|null", "worst?": "string|null"}]},
    "sweep": [{"lo": "uint", "hi": "uint", "ran": "bool", "skipped": "string", "angles": "int", "complete": "bool",
               "reached": "number", "next?": "uint", "seconds": "number:0:1e7", "count": "int", "correctly_rounded": "int",
               "max_scaled_error": "number", "over_float32_bound": "int",
               "worst": {"|null": true, "angle": "number", "angle_bits": "uint", "grad": "int", "gc": "number",
                         "gs": "number", "ref": "number", "got": "number", "scaled_error": "number"}}],
    "premise?": [{"disposition": "string", "reason": "string:20000", "program": "string:4096", "file": "string:4096",
                  "given": "bool", "k_ulp": "number:0:64", "seconds": "number:0:1e7", "device": "string:256",
                  "cuda_runtime": "string:16", "cuda_driver": "string:16", "date": "string:64",
                  "functions": [{"function": "string:64", "max_floats_from_correctly_rounded": "int:0:4294967296",
                                 "max_ulp_from_exact": "number:0:1e9", "mpfr_recheck_ulp": "number:0:1e9", "at_x": "string:40",
                                 "outside_unit_interval": "int:0:4294967296"}],
                  "exceeded": ["string:20000"]}]
  })");
  return shape;
}

// What nightly_regressions and the dashboard (nightly_site.hpp) read of an earlier night (and
// the premise, which the summary's reader reads though no rule compares it);
// every field optional, as summaries of older builds lack some.
const json& summary_shape() {
  static const json shape = json::parse(R"({
    "date?": "string", "commit?": "string:200", "wall_seconds?": "number:0:1e7",
    "status?": "string:64", "shards?": "int:1:4096", "gpu?": "bool", "previous?": "string:64",
    "problems?": ["string:20000"], "regressions?": ["string:20000"], "warnings?": ["string:20000"],
    "verify?": [{"kernel?": "string:4096", "grad_dtype?": "string:16|null", "seconds?": "number:0:1e7",
                 "verdict?": "string", "exit?": "int", "report?": "bool",
                 "sets?": {"*": {"disposition?": "string", "max?": "any", "elements?": "int"}}}],
    "golden?": {"skipped?": "string:20000", "results?": [{"problem?": "string", "disposition?": "string"}]},
    "sweep?": {"ran?": "bool", "max_scaled_error?": "number", "seconds?": "number:0:1e7", "complete?": "bool",
               "over_float32_bound?": "int", "over_strict?": "int"},
    "premise?": {"disposition?": "string", "reason?": "string:20000", "program?": "string:4096", "file?": "string:4096",
                 "given?": "bool", "k_ulp?": "number", "seconds?": "number:0:1e7", "device?": "string:256",
                 "cuda_runtime?": "string:16", "cuda_driver?": "string:16", "date?": "string:64",
                 "functions?": [{"function?": "string:64", "max_floats_from_correctly_rounded?": "int",
                                 "max_ulp_from_exact?": "number", "mpfr_recheck_ulp?": "number", "at_x?": "string:40",
                                 "outside_unit_interval?": "int"}],
                 "exceeded?": ["string:20000"]}
  })");
  return shape;
}

}  // namespace

void check_shard_result(const json& shard, const std::string& where) {
  if (!shard.is_object()) ref::bad_input(where, "(top)", "a nightly shard result (an object)", ref::brief(shard));
  if (shard.value("schema", json()) != nightly_shard_schema)  // not a shard result at all: said first
    ref::bad_input(where, "schema", std::string("\"") + nightly_shard_schema + "\"", ref::brief(shard.value("schema", json())));
  check_shape(shard, shard_shape(), where);
  const std::string date = shard["date"];
  if (!valid_run_date(date)) ref::bad_input(where, "date", "YYYY-MM-DD (a folder's name under --out)", ref::brief(shard["date"]));
}

json read_shard_result(const std::string& path) {
  json j = ref::read_json_file(path);
  check_shard_result(j, path);
  return j;
}

void check_previous_summary(const json& summary, const std::string& where) { check_shape(summary, summary_shape(), where); }

NightSummary read_previous_summary(const std::string& path) {
  const json j = ref::read_json_file(path);
  check_previous_summary(j, path);
  if (j.contains("date") && !valid_run_date(j["date"].get<std::string>()))
    ref::bad_input(path, "date", "YYYY-MM-DD, a day of the calendar", ref::brief(j["date"]));
  try {
    return night_summary_from_json(j);
  } catch (const std::invalid_argument& e) {  // a disposition that names none: the field and value in e
    throw std::invalid_argument(path + ": " + e.what());
  } catch (const json::exception& e) {  // a field of another type than the summary's writer gives it
    throw std::invalid_argument(path + ": not a summary this program wrote: " + e.what());
  }
}

bool valid_run_date(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  const int year = std::stoi(d.substr(0, 4)), month = (d[5] - '0') * 10 + (d[6] - '0'), day = (d[8] - '0') * 10 + (d[9] - '0');
  if (month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day <= days[month - 1] + (month == 2 && leap ? 1 : 0);
}

std::string make_night_folder(const std::string& root, const std::string& date, const std::string& label) {
  const std::string dir = (std::filesystem::path(root) / date).string();
  make_output_folder(root, label);
  make_output_folder(dir, label);
  return dir;
}

}  // namespace rope2d::verify
