// `rope2d verify --sanitize`: the same verify, on the reduced set, under each compute-sanitizer
// tool in turn; one line per tool, logs beside the reports.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "verify_worker.hpp"
#include "codec/atomic_file.hpp"
#include "harness/testbed/sanitize.hpp"
#include "rope2d/verify/judge/suites.hpp"

namespace rope2d::cli {

int verify_sanitized(const VerifyArgs& a) {
  // A submission's kernels run in the kernel host inside its box, which compute-sanitizer
  // cannot follow (a new environment, namespaces): under the tools it would watch nothing of
  // the submission and pass it. Only an explicit --no-sandbox runs them where the tools see.
  if (!a.run.submission.empty() && !a.no_sandbox)
    throw std::invalid_argument("--sanitize of a submission: its kernels run in the box, where compute-sanitizer cannot follow "
                                "them; add --no-sandbox to run the submission unconfined under the tools");
  std::vector<std::string> args = {"verify"};
  if (!a.run.submission.empty()) args.push_back(std::filesystem::absolute(a.run.submission).string());
  args.insert(args.end(), {"--sanitize-set", "--rounds", "1", "--quiet", "--seed", std::to_string(a.run.seed),
                           "--tier", std::string(verify::name(a.run.tier)), "--grad-dtypes", verify::grad_dtype_list(a.run.grad_dtypes),
                           "--nvcc", a.run.nvcc, "--golden", a.golden,
                           // Calls run tens of times slower under the tools.
                           "--call-timeout", fmt::format("{}", std::max(120.0, 30 * a.call_timeout))});
  for (const auto& f : a.run.nvcc_flags) args.push_back("--nvcc-flag=" + f);
  if (a.run.ieee_subnormals) args.push_back("--ieee-subnormals");
  if (a.no_sandbox) args.push_back("--no-sandbox");
  // Judged on the CPU under the tools, so they watch the submission and the testbed only.
  args.push_back("--cpu-judge");
  const std::string out = (a.out_dir.empty() ? std::string("reports/verify/sanitize") : a.out_dir) + "/sanitize";
  // The tools' logs are opened for writing there (run_sanitizers): never through a link or into a FIFO.
  verify::require_output_folder(out, "--out");
  for (const char* tool : {"memcheck", "racecheck", "initcheck"}) verify::require_output_file(out + "/" + tool + ".log", "--out");
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (self.empty()) throw std::runtime_error("--sanitize: cannot find this program's path (/proc/self/exe)");
  const auto results = verify::run_sanitizers(a.sanitizer, self, args, out, !a.run.submission.empty());
  int failed = 0;
  for (const auto& r : results) {
    std::cout << fmt::format("{:<10} {}{}{}\n", r.tool, r.status, r.detail.empty() ? "" : ": " + r.detail,
                             r.log.empty() ? "" : "  (log: " + r.log + ")");
    failed += r.status == "FAILED";
  }
  std::cout << (failed ? "rope2d verify --sanitize: FAILED\n" : "rope2d verify --sanitize: no errors found (SKIPPED tools say why)\n");
  return failed ? 1 : 0;
}

}  // namespace rope2d::cli
