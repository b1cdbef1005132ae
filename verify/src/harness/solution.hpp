// SOL-ExecBench solutions (solution.json: spec.entry_point "file.py::run", spec.binding torch,
// spec.destination_passing_style, sources as path + content), verified out of process: the
// sources are written out, and the Python host (python/rope2d/runner/host_serve.py, needing only
// PyTorch) calls the entry point on the judge's own device memory in the box, as the kernel
// host does for a C ABI submission (verify/src/harness/testbed/served_solution.hpp).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "codec/folder_file.hpp"
#include "rope2d/ref/dtype.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/model/report.hpp"
#include "harness/host_notes.hpp"
#include "harness/spawn.hpp"

namespace rope2d::verify {

struct Solution {
  std::string path, sha256, name, definition, entry_point, binding;
  std::optional<SubmitterFolder> folder;  // solution.json's, opened once: what else is read of it is read beneath it
  std::vector<std::string> languages;  // SOL-ExecBench's: pytorch, triton, ... or cuda_cpp, cutlass, ...
  bool destination_passing = true;
  std::string dir;  // where the sources were written
  std::vector<std::string> sources;  // their paths under dir, normalised
  // C++ languages: built by the runner through the torch binding with spec.compile_options
  // (cuda_cflags absent: the official harness's "-O3 --use_fast_math", and a warning).
  bool cpp = false;
  nlohmann::json compile_options = nlohmann::json::object();  // spec.compile_options as read, handed to the runner
  std::vector<std::string> warnings;
};

// Reads solution.json with SOL-ExecBench's rules (solution_schema.hpp: sources given by path
// only are filled from the files beside it) and writes its sources under dir. Throws
// std::invalid_argument with one line per broken rule, naming the file and the field.
// `folder`: the solution's folder as the caller opened it (its one descriptor); null: opened here.
Solution prepare_solution(const std::string& json_path, const std::string& dir, const SubmitterFolder* folder = nullptr);
// A report folder's solution/ (`dir`) is one run's alone: sources an earlier run left there
// would reach the next one's box, or sit beside another submission's report. Emptied only where
// an earlier run of the verifier made it (its mark, .rope2d-sources); a folder of anything else
// is not ours to empty (invalid_argument naming it: exit 2). Nothing there: nothing done.
void empty_sources_folder(const std::string& dir);

// The same reading and checks, nothing written (dir and sources empty): for what needs only
// its fields (verify --list, the definition it declares).
Solution read_solution(const std::string& json_path, const SubmitterFolder* folder = nullptr);

// The problem a solution declares (its "definition"): the grad dtypes and the constant head_dim
// axis, from a definition.json beside the solution.json whose name is
// that definition (inputs.grad_cos/grad_sin dtype, axes.head_dim), else SOL-ExecBench's 090
// definition by name (bfloat16 grads, head_dim 128); empty / 0 when neither names it. Throws
// std::invalid_argument naming the file and field for a malformed definition.json of that name.
struct DefinitionScope {
  std::vector<ref::Dtype> grad_dtypes;
  std::int64_t head_dim = 0;
};
DefinitionScope definition_scope(const Solution& s);
// The tensors' shape a solution is called with: a flat problem of n elements is shaped
// [1, n / head_dim, head_dim] where head_dim (> 0) divides n, as the definition's axes say.
std::vector<std::int64_t> solution_shape(const ProblemSpec& p, std::int64_t head_dim);
// Whether the definition's axes can shape the problem (head_dim 0: any problem).
bool on_axes(const ProblemSpec& p, std::int64_t head_dim);
// Within the problem a solution's definition declares: on its axes and of one of its grad
// dtypes (none listed: any). Sets outside it are judged and reported apart, never in the verdict.
bool within_definition(const ProblemSpec& p, const std::vector<ref::Dtype>& grad_dtypes, std::int64_t head_dim);

// Without a GPU: each .py source compiled to bytecode in the box (harness/submission.hpp,
// byte_compile_in_box). ran false: no Python source, or the interpreter could not start (why
// in error); ran true with an error: the compiler's message (a syntax error is the submission's).
struct ByteCompile {
  bool ran = false;
  int files = 0;
  std::string error;
};

// ---- The Python host's notes (python/rope2d/runner/host_serve.py), read as harness/host_notes.hpp's events ----
// A note is the host's word: a finding or an error it reports fails the call (a submission that
// says it failed only harms itself); its silence proves nothing, the judge's own checks do.
// A BadNote, or a note of the other side's kinds, changes nothing.

// What the host said about itself (its notes of seq 0): the import's changes and the build
// among `notes`, a build or load error (cause build or runtime).
struct HostStart {
  std::vector<std::string> notes;
  std::string load_error;
  Cause load_cause = Cause::runtime;
};
void read_host_note(const harness::wire::HostEvent& e, HostStart& into);
// The notes of one call folded into its result: the host's error (its text replaces the
// testbed's "returned 1", its kind gives the cause), its findings appended (each once).
// Returns the call's wall time in seconds the note gave (0 when none).
double fold_call_note(const harness::wire::HostEvent& e, CallResult& c);

}  // namespace rope2d::verify
