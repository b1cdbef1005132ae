// The rules of SOL-ExecBench's solution.json, written once: what JSON Schema can say is in
// verify/schema/solution.schema.json (json_schema.hpp: embedded at build time, checked with
// valijson), the cross-field rules and rope2d's own caps in one function here. `rope2d verify`,
// the C ABI and the Python package (rope2d.solution_schema) all read solutions through this.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec/folder_file.hpp"
#include "codec/json_schema.hpp"

namespace rope2d::verify {

// The upstream commit of NVIDIA/SOL-ExecBench whose models (src/sol_execbench/core/data/) the
// schema and rules mirror.
inline constexpr char solexecbench_commit[] = "8d2237d2012cba81f64905b273b592653623abf9";

// rope2d's caps on what the official model leaves unbounded.
struct SolutionLimits {
  std::size_t max_sources = 1000;
  std::uint64_t max_source_bytes = 32ull << 20;  // all sources' contents together
};

// The schema's text as embedded at build time.
const std::string& solution_schema_text();

// Layer 1: the JSON Schema alone (schema_problems(sol, JsonFormat::solution)). One problem per
// offending value (the deepest path).
std::vector<SchemaProblem> schema_problems(const nlohmann::json& sol);
// Layer 2: the cross-field rules and the caps; values of the wrong type are left to layer 1.
std::vector<SchemaProblem> cross_field_problems(const nlohmann::json& sol, const SolutionLimits& limits = {});

// As SOL-ExecBench's CLI loads a solution file: a source whose content is absent or empty (any
// Python-falsy value) takes the text of the file of that path beside the solution.json, where
// it exists; here only a regular file inside that folder (no symlink out of it), within the
// caps, opened beneath the folder's one descriptor (folder_file.hpp). Problems of reading a
// file are returned; the model's rules are not checked here.
std::vector<SchemaProblem> fill_sources(nlohmann::json& sol, const SubmitterFolder& folder, const SolutionLimits& limits = {});

// Everything, in order: the source count cap first (a huge list is refused before anything is
// walked), then filling from `dir` (empty: no filling), the schema and the cross-field rules.
std::vector<SchemaProblem> solution_problems(nlohmann::json& sol, const std::string& dir, const SolutionLimits& limits = {});
// The same, filling from a folder already open (null: no filling).
std::vector<SchemaProblem> solution_problems(nlohmann::json& sol, const SubmitterFolder* folder, const SolutionLimits& limits = {});

// Reads a solution.json (regular file, size and depth capped) and checks it; the filled
// document in `sol`. Throws std::invalid_argument naming the file when it is not JSON at all.
// The file is read once, beneath its folder (a link may stay in it, never lead out of it: exit 2
// naming it); `text`, where given, gets its bytes. Its folder is opened once, by the path given,
// and its sources are read beneath that descriptor.
std::vector<SchemaProblem> check_solution_file(const std::string& path, nlohmann::json& sol, const SolutionLimits& limits = {},
                                               std::string* text = nullptr);
// The same out of `folder`, opened already (the caller reads more beneath it: definition.json);
// `path` is the file's path as given, its last part the name read beneath the folder.
std::vector<SchemaProblem> check_solution_file(const SubmitterFolder& folder, const std::string& path, nlohmann::json& sol,
                                               const SolutionLimits& limits = {}, std::string* text = nullptr);

// spec.destination_passing_style as pydantic reads it (true/false, 0/1, "yes", "off", ...);
// absent: true. Call only on a document without problems.
bool destination_passing(const nlohmann::json& spec);
// Whether spec.languages names a C++ language (cuda_cpp, cutlass, cudnn, cublas).
bool cpp_languages(const nlohmann::json& spec);
// The language families the cross-field rules use (a test holds them equal to the schema's enum).
const std::vector<std::string>& language_family(bool cpp);

}  // namespace rope2d::verify
