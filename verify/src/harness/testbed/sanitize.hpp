// Memory checking: `rope2d verify --sanitize` re-executes itself under compute-sanitizer, once
// per tool (memcheck, with inputs flush at allocation ends; racecheck; initcheck), on a reduced
// set. A tool that is absent, that the driver refuses, or that cannot follow the kernels into
// their process is SKIPPED with the reason.
#pragma once

#include <string>
#include <vector>

namespace rope2d::verify {

struct SanitizerResult {
  std::string tool;
  std::string status;  // "passed", "FAILED", or "SKIPPED"
  std::string detail;  // the reason, or the log's first error line
  std::string log;     // path of the tool's full output ("" when it did not run)
};

// Runs `sanitizer --tool T ... self args...` for each tool, its output in out_dir/T.log.
// `args` is rope2d's own argument vector for the reduced run (without the program name).
// `kernels_in_child`: the kernels run in a host process of their own (a submission's): memcheck
// and racecheck follow them there; initcheck, which cannot, is SKIPPED with the reason.
std::vector<SanitizerResult> run_sanitizers(const std::string& sanitizer, const std::string& self,
                                            const std::vector<std::string>& args, const std::string& out_dir,
                                            bool kernels_in_child);

}  // namespace rope2d::verify
