// The nightly's inputs from files: a shard's result (rope2d nightly --shard) and an earlier
// night's summary.json. Both read through the one reader (json_schema.hpp: regular files only,
// a size cap, bounded depth, then verify/schema/nightly-shard.schema.json and
// nightly-summary.schema.json) before anything uses them.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "products/nightly/nightly_summary.hpp"

namespace rope2d::verify {

// What a shard result's "schema" field holds.
inline constexpr const char* nightly_shard_schema = "rope2d.nightly-shard/1";

// True for a date of the form YYYY-MM-DD (digits only, month 01-12, day 01-31): the name of a
// run's folder, which must stay inside the root.
bool valid_run_date(const std::string& date);

// The night's folder <root>/<date>, created (make_output_folder): root and the night's folder
// each a directory or nothing, never a symbolic link, else invalid_argument naming label (the
// option that gave root, "--out") and the path.
std::string make_night_folder(const std::string& root, const std::string& date, const std::string& label = "");

// Every field the merge reads, with its type and range (shard.count capped as --shard is),
// and a date that names a folder under --out and nothing else. Throws bad input naming `where`.
void check_shard_result(const nlohmann::json& shard, const std::string& where);
nlohmann::json read_shard_result(const std::string& path);

// The fields the regression rules read, each optional (older summaries lack some), typed.
void check_previous_summary(const nlohmann::json& summary, const std::string& where);
// Its dispositions named as dispositions are (disposition.hpp).
NightSummary read_previous_summary(const std::string& path);
// Whether a night's summary is there to read: something at `path`, or a name that cannot be
// resolved (a link that loops), which reading then sets aside with its reason; never throws.
bool summary_named(const std::filesystem::path& path);

}  // namespace rope2d::verify
