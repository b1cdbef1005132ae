// The two halves of `rope2d verify`: the supervising parent (cmd_verify.cpp: options and the
// CPU-only fallback; verify_parent.cpp: time limits, reports of crashed runs) and the worker it
// forks, which does all GPU work (verify_worker.cpp) and reports to the parent in the messages
// of verify/src/codec/worker_protocol.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "harness/harness.hpp"
#include "harness/sandbox.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/judge/run_options.hpp"
#include "rope2d/verify/model/tolerance.hpp"
#include "codec/worker_protocol.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace rope2d::cli {

struct VerifyArgs {
  // What selects and judges the problems (and goes into every reproduce line): the submission,
  // grad dtypes, tier, seed, rounds, quick, nvcc and its flags, the sanitizer's set, IEEE subnormals.
  verify::RunOptions run{.worst_dir = repo_file("reference/worst")};
  std::string out_dir, only, golden = repo_file("data/golden-smoke");
  bool out_default = false;  // out_dir is the default, not given
  bool quiet = false, bench = false, list = false;
  bool sanitize = false;                        // --sanitize (its reduced set: run.sanitize_set)
  bool huge = false;                            // --huge: also the sets past 2^31 elements
  bool cpu_judge = false;                       // --cpu-judge: reference and comparison on the CPU for every set
  bool require_gpu = false;                     // --require-gpu or ROPE2D_REQUIRE_GPU=1: no GPU is exit 4
  // --grad-dtypes as given (run.grad_dtypes once read), and whether it was on the command line.
  std::vector<std::string> grad_dtypes_option{"bf16", "fp16", "fp32"};
  std::string tier_name = "float32-bound";      // --tier as given (run.tier once read)
  bool dtypes_given = false;
  // A solution's definition's grad dtypes (empty: every dtype is the solution's problem); the
  // others, where --grad-dtypes asks for them, are judged beyond the definition.
  std::vector<ref::Dtype> definition_dtypes;
  std::int64_t definition_head_dim = 0;         // its constant head_dim (0: any shape is its problem)
  bool beyond_axes = false;                     // --beyond-axes: also the sets off the definition's axes
  std::string sanitizer = "compute-sanitizer";
  double call_timeout = 20;
  double build_timeout = 600;                   // --build-timeout: seconds a submission's build may take
  double load_timeout = 120;                    // --load-timeout: seconds loading it may take (load check, host start)
  bool no_sandbox = false;                      // --no-sandbox: run the submission unconfined (said in the report)
  std::vector<std::string> hide;                // --hide: more folders hidden from the box (a nightly's other reports)
  // The submission's folder, opened once by the parent before the worker is forked: the
  // parent's read of a solution and the worker's are beneath the same descriptor.
  std::shared_ptr<const verify::SubmitterFolder> submission_folder;
};

// The box a submission's processes run in for this run (harness/sandbox.hpp): `scratch` the
// one writable folder; the report folder, the home folder, the golden data, the working
// folder, the submission's own folder and those of --hide hidden, the toolchain the box runs
// (the Python package, nvcc's prefix, the library path) shown again where it lies under them.
verify::harness::BoxPolicy submission_box(const VerifyArgs& a, const std::string& scratch, bool gpu);

bool is_solution(const std::string& path);

// The submission's harness (harness/harness.hpp): its kind's, from the registry, or the
// project's own kernel where none is given; in this run's box, with its options.
verify::harness::HarnessOptions harness_options(const VerifyArgs& a);
std::unique_ptr<verify::harness::Harness> submission_harness(const VerifyArgs& a);

// The report folder a.out_dir, checked before anything is written there (cmd_verify.cpp): the
// report files' rules (check_report_folder), only regular files and folders in the folders a
// run fills (build/, solution/), and for the default folder (in the current folder) no link on
// the way to it. invalid_argument (exit 2) naming what is there.
void check_verify_folder(const VerifyArgs& a);

// What the machine can check without a GPU (cmd_verify.cpp), `reason` saying why; the report
// in a.out_dir holds every set of `specs`, skipped (no GPU) or failed to build.
int cpu_only(const VerifyArgs& a, const std::vector<verify::ProblemSpec>& specs, const std::string& reason);

// Runs the worker and supervises it (verify_parent.cpp); a report is written to a.out_dir.
// Runs the worker and judges; without a GPU, the CPU checks, whose report goes to `<out>-no-gpu`
// where --out was not given (a.out_dir then names it), never over a judged run's report.
int judge_submission(VerifyArgs& a, const std::vector<verify::ProblemSpec>& specs);

// --sanitize (verify_sanitize.cpp): re-executes rope2d verify under each compute-sanitizer tool
// on the reduced set; 0 when every tool passed or was SKIPPED, 1 when one found errors.
int verify_sanitized(const VerifyArgs& a);

// Everything that touches CUDA: the submission's harness judged by verify() (products/verify/
// verify.hpp), whose steps it forwards to the parent; verify() writes the report.
int verify_worker(const VerifyArgs& a, const std::vector<verify::ProblemSpec>& specs, int fd);

}  // namespace rope2d::cli
