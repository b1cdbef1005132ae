// Golden data: one safetensors file per problem (inputs named as in SOL-ExecBench, the
// correctly rounded result per output dtype, the per-element scale the tolerances use) and a
// manifest.json with the schema, generator version, exact command line, seeds, reference
// precision and the sha256 of every file. The same command gives the same bytes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rope2d/verify/model/problem.hpp"

namespace rope2d::verify {

inline constexpr const char* golden_schema = "rope2d.golden/1";

struct GoldenFile {
  std::string file;     // relative to the set's directory
  std::string problem;  // ProblemSpec::name()
  std::string sha256;
  std::int64_t elements = 0;
};

// progress(i, n, what): step i of n problems; what names the problem and, while golden writes
// one, its phase (inputs, reference, writing).
using ProgressFn = std::function<void(std::size_t, std::size_t, const std::string&)>;

// How solexecbench/workload.jsonl names the safetensors files. SOL-ExecBench looks a relative
// path up under its staging folder, then under $FLASHINFER_TRACE_DIR: relative paths are file
// names in the set's folder (run with FLASHINFER_TRACE_DIR=<the set>); absolute ones are the
// set's final location and need nothing.
enum class SolPaths { relative, absolute };

// Writes every problem, the manifest, and a SOL-ExecBench problem directory (solexecbench/):
// staged in a fresh folder beside dir, read back and checked, then swapped in whole (a lock per
// target; SIGINT/SIGTERM or any error leave the previous set as it was). A non-empty dir is
// refused unless force. progress is called before each problem and each of its phases.
void write_golden(const std::string& dir, const std::vector<ProblemSpec>& specs, const std::string& command_line,
                  const ProgressFn& progress = {}, bool force = false, SolPaths paths = SolPaths::relative);

struct GoldenSet {
  std::string dir;
  std::string command;
  std::vector<GoldenFile> files;
};

// Reads the manifest and checks every file's sha256; throws std::invalid_argument naming the
// file and field on any mismatch or malformed manifest.
GoldenSet open_golden(const std::string& dir);

struct GoldenProblem {
  Problem problem;
  Expected expected;  // fp32, bf16, fp16 and scale as stored
};
GoldenProblem load_golden(const GoldenSet& set, const GoldenFile& f);

// The generator's version (git describe at configure time).
std::string generator_version();

}  // namespace rope2d::verify
