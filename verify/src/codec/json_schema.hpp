// Every JSON file the verifier reads, and the JSON inside a file it reads (a safetensors
// header), declared once as a JSON Schema (draft 7) in verify/schema/<format>.schema.json
// (installed to share/rope2d/schemas/, embedded into the library at build time, so the program
// never looks for them), and read through one function: read_json_file(path, format) reads a
// regular file within the size cap (input.hpp), parses it with bounded depth and no duplicate
// keys, and checks it against the format's schema with valijson before any reader uses
// operator[] or get<T>() on it (read_json_text: the same for text already read). A refusal is
// bad input (exit 2) naming the file, the field (as "results[3].worst.ref"), what was expected
// and what was found. Rules JSON Schema cannot say (a date of the calendar, a digest, a
// disposition that follows from the numbers) stay with each reader, after the schema has passed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rope2d::verify {

enum class JsonFormat {
  report,              // report.json: rope2d verify / check / eval --out, read back by report, check and the nightly
  nightly_shard,       // a shard's result: rope2d nightly --shard i/N, read by nightly --merge-shards
  nightly_summary,     // summary.json of a night, read by the next night and the dashboard
  nightly_config,      // the nightly's --config file
  golden_manifest,     // manifest.json of a golden set
  definition,          // SOL-ExecBench's definition.json beside a solution.json
  solution,            // SOL-ExecBench's solution.json (its cross-field rules: solution_schema.hpp)
  sincosf_ulp,         // the sincosf premise measurement (reports/premise/sincosf_ulp.json)
  layout,              // a position layout (rope2d.layout/1): rope2d layout FILE, rope2d golden --layout FILE
  safetensors_header,  // the JSON header inside a safetensors file: golden problems, outputs files
  bench_torch,         // the torch peers' timings: python3 -m rope2d.bench_torch's output, read by rope2d bench --torch
};

inline constexpr JsonFormat all_json_formats[] = {JsonFormat::report,          JsonFormat::nightly_shard,
                                                   JsonFormat::nightly_summary, JsonFormat::nightly_config,
                                                   JsonFormat::golden_manifest, JsonFormat::definition,
                                                   JsonFormat::solution,        JsonFormat::sincosf_ulp,
                                                   JsonFormat::layout,          JsonFormat::safetensors_header,
                                                   JsonFormat::bench_torch};

// "report", "nightly-shard", ...: the format's name, and its schema's file name
// ("report.schema.json"); parse_json_format reads a name back (nullopt: none).
std::string_view name(JsonFormat f);
std::string schema_file(JsonFormat f);
std::optional<JsonFormat> parse_json_format(std::string_view name);

// The deepest nesting a file of the format may have (a safetensors header 3, a layout 6, others 64).
int json_max_depth(JsonFormat f);

// The schema's text as embedded at build time.
const std::string& schema_text(JsonFormat f);

// One broken rule. `ours`: a limit of rope2d's own that the format's upstream model does not
// have (solution.json only); the message says so.
struct SchemaProblem {
  std::string field, expected, found;
  bool ours = false;
  std::string line(const std::string& file) const;  // "file: field: expected E, found F"
};

// Every offending value (the deepest field of each), in the order the schema lists its fields;
// of a document of more than 20,000 values, those of the first field that fails on its own,
// found descending in the schema's order (a file of millions of bad entries costs one pass,
// not millions of error records). A required "const" field that differs (the format's name,
// "schema") is said alone: the file is of another format. Expected texts are the schema node's
// "x-expected" where it has one, else said from its type, range, enum or const. `part` names
// one of the schema's "definitions" to check against instead of the whole (definition.json's
// "rope2d_backward": what rope2d reads from the definition of the solution's own problem).
std::vector<SchemaProblem> schema_problems(const nlohmann::json& doc, JsonFormat f, std::string_view part = {});

// Throws bad input (std::invalid_argument, exit 2) for the first problem; `where` names the file.
void check_json(const nlohmann::json& doc, JsonFormat f, const std::string& where, std::string_view part = {});

// The one reader: the file's JSON, checked against its format's schema, or bad input naming
// file, field, expected and found. The ordered form keeps the keys in the file's order.
nlohmann::json read_json_file(const std::string& path, JsonFormat f);
// The same for text already read (a file opened beneath a submitter's folder, folder_file.hpp);
// `where` names it.
nlohmann::json read_json_text(const std::string& text, const std::string& where, JsonFormat f);
nlohmann::ordered_json read_ordered_json_file(const std::string& path, JsonFormat f);

}  // namespace rope2d::verify
