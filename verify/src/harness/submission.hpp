// A C ABI kernel submission made ready to run in the box: a CUDA source compiled by nvcc
// inside the box (sandbox.hpp), or a prebuilt shared object copied there; and a Python
// solution's sources compiled to bytecode there. The verifier never
// loads it into its own process: the kernel host loads it, in the box (kernel_host.cpp), for a
// load check without a GPU (probe_submission) or to serve calls (remote_kernel.hpp).
// Failures are values (a message), never exceptions that escape.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/sandbox.hpp"
#include "harness/solution.hpp"
#include "rope2d/verify/model/status.hpp"
#include "rope2d/rope2d_backward.h"

namespace rope2d::verify {

struct Submission {
  std::string path;            // as given
  std::string kind;            // "builtin", or its kind's name (harness/kinds.hpp)
  std::string sha256;          // of the file given
  std::string compile_command; // for sources
  std::string compile_log;
  std::vector<std::string> warnings;
  std::string library;         // the shared object to load, in the box's scratch folder
  std::string symbol = "rope2d_backward", fused_symbol = "rope2d_backward_fused";  // its kind's entry points
  rope2d_backward_fn backward = nullptr;
  rope2d_backward_fused_fn fused = nullptr;  // optional entry point
  std::string error;           // why it cannot be run (build, load, symbol)
  harness::Refusals refused;   // what its build and load check tried that the box refused
  Cause error_cause = Cause::runtime;  // its kind: build, timeout (the build's limit) or runtime
};

struct BuildOptions {
  std::string nvcc = "nvcc";
  std::vector<std::string> nvcc_flags;  // appended to "-O3 -arch=sm_90 -shared -Xcompiler -fPIC"
  std::string include_dir;              // the ABI header's folder
  std::string build_dir;                // where the built submission.so is kept for the report
  harness::BoxPolicy box;               // scratch: where the build runs and the library is left
  double timeout_s = 600;               // the build's wall-clock limit
  std::shared_ptr<const SubmitterFolder> folder;  // the submission's, opened by the caller; none: opened here
};

// The largest C ABI submission file taken, before it is hashed or copied: a CUDA source as much
// as the headers it may include (copy_headers), a prebuilt shared object more.
constexpr std::uint64_t max_source_bytes = std::uint64_t{32} << 20;    // .cu: 32 MiB
constexpr std::uint64_t max_library_bytes = std::uint64_t{256} << 20;  // .so: 256 MiB

// A report folder's build/ (`dir`) holds one run's built object: one an earlier run left (of
// another submission) would sit beside this run's report. Emptied where it holds only the
// verifier's submission.so; anything else there is not ours to remove (invalid_argument naming
// it: exit 2).
void empty_build_folder(const std::string& dir);

// invalid_argument naming the file, the limit and its size when a C ABI submission's file is
// larger than its kind's limit (one fstat of the file opened, nothing read); other kinds have
// limits of their own (SolutionLimits).
void check_submission_size(const std::string& path);

// Builds (sources) or copies (shared objects) into the box's scratch folder; fast-math flags
// add a warning. A file over check_submission_size's limit is an error before it is read.
Submission prepare_submission(const std::string& path, const BuildOptions& o);

// The wall-clock limit of loading a submission (the load check, a host's start: --load-timeout)
// by default.
inline constexpr double default_load_timeout_s = 120;

// Loads the library in the box with the kernel host (no GPU needed): "" when it loads and
// exports the kind's entry point (s.symbol), else why not, within `timeout_s` (--load-timeout).
// The box's exit is the submission's word; the entry point is found only when the judge,
// reading the file's dynamic symbol table itself (elf_symbols.hpp, before the box runs), finds
// it defined too: else a disagreement.
std::string probe_submission(Submission& s, const std::string& host_program, const harness::BoxPolicy& box,
                             double timeout_s = default_load_timeout_s);

// A Python solution's sources compiled to bytecode in the box, as the build of a C ABI
// submission is (no GPU needed): a copy of the sources in the scratch folder, compiled there
// by `python -I` (isolated: neither the working folder nor the user's site folder on its
// path, no PYTHON* variable read), within a wall-clock limit of `timeout_s` (--build-timeout). Nothing of the
// solution's, and nothing beside it, runs outside the box: a Python imports modules it needs
// from the first folder of its path, which outside the box would be the caller's working
// folder. ran false: no Python source, or no interpreter (why in error); ran true with an
// error: the compiler's message (a syntax error is the submission's). `refused` (optional)
// gets what the box refused it.
ByteCompile byte_compile_in_box(const Solution& s, const std::string& python, const harness::BoxPolicy& box,
                                double timeout_s, harness::Refusals* refused = nullptr);

// The kernel host program installed beside this one (rope2d-kernel-host), copied into the
// box's scratch folder (the box need not see where the verifier lives); its path there.
std::string kernel_host_program(const std::string& scratch);

}  // namespace rope2d::verify
