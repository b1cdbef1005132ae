// Re-executing rope2d under compute-sanitizer with an argument vector (no shell).
#include "harness/testbed/sanitize.hpp"

#include <filesystem>
#include <fstream>
#include <string_view>

#include "harness/spawn.hpp"

namespace rope2d::verify {

namespace {

constexpr int error_exit = 86;  // the tool's exit code when it found errors
constexpr int exec_failed = 127;  // SpawnResult::code() when it could not start

// The tool's first finding: its first header line ("========= " and a word; not its banner,
// a warning, its summary or closing words), without the tag. It names what was found
// ("Invalid __global__ read of size 4 bytes") before the API errors that follow from it
// ("Program hit cudaErrorLaunchFailure ..."). Else the first line that names an error, else
// the last line.
std::string telling_line(const std::string& log) {
  constexpr std::string_view tag = "========= ";
  std::ifstream in(log);
  std::string line, first_error, last;
  while (std::getline(in, line)) {
    if (line.rfind(tag, 0) == 0 && line.size() > tag.size() && line[tag.size()] != ' ' &&
        line.find("COMPUTE-SANITIZER") == std::string::npos && line.find("SUMMARY") == std::string::npos &&
        line.find("Target application") == std::string::npos && line.compare(tag.size(), 7, "Warning") != 0)
      return line.substr(tag.size());
    if (first_error.empty() && (line.find("ERROR") != std::string::npos || line.find("Error") != std::string::npos))
      first_error = line;
    if (!line.empty()) last = line;
  }
  return first_error.empty() ? last : first_error;
}

std::string line_with(const std::string& log, const std::string& word) {
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find(word) != std::string::npos) return line;
  return "";
}

}  // namespace

std::vector<SanitizerResult> run_sanitizers(const std::string& sanitizer, const std::string& self,
                                            const std::vector<std::string>& args, const std::string& out_dir,
                                            bool kernels_in_child) {
  std::filesystem::create_directories(out_dir);
  std::vector<SanitizerResult> out;
  for (const char* tool : {"memcheck", "racecheck", "initcheck"}) {
    SanitizerResult r{tool, "", "", out_dir + "/" + tool + ".log"};
    // A submission's kernels run in a host process of their own (the kernel host, the Python
    // host), over device memory the judge's process makes shareable and the host maps, and
    // initcheck does not follow writes into it across the two processes. Seen on an H100 with
    // the clean kernel: every copy back of an output reported as a read of memory never written
    // (909484 errors on the reduced set), and, with those copies unchecked, no end to the reduced
    // set in three minutes (memcheck and racecheck each ended it in 45 s). Its answer there
    // would be noise, or none.
    if (r.tool == "initcheck" && kernels_in_child) {
      r.status = "SKIPPED";
      r.detail = "initcheck cannot follow the device memory the judge shares with the process the submission's kernels run in";
      std::error_code gone;
      std::filesystem::remove(r.log, gone);  // an earlier run's, in the same --out: not this run's
      r.log.clear();
      out.push_back(r);
      continue;
    }
    std::vector<std::string> argv = {sanitizer, "--tool", tool, "--error-exitcode", std::to_string(error_exit),
                                     "--target-processes", "all"};
    if (r.tool == "memcheck") argv.insert(argv.end(), {"--leak-check", "no"});
    argv.push_back(self);
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--out", out_dir + "/" + tool});
    const int rc = run_logged(argv, r.log).code();
    if (rc == exec_failed) {
      r.status = "SKIPPED";
      r.detail = sanitizer + " could not be started (not installed or not on PATH)";
    } else if (rc == error_exit) {
      r.status = "FAILED";
      r.detail = telling_line(r.log);
    } else if (const std::string no_gpu = line_with(r.log, "SKIPPED"); !no_gpu.empty()) {
      // Under a tool the driver refuses, CUDA finds no device and verify skips its kernel runs.
      r.status = "SKIPPED";
      r.detail = "the kernel runs did not happen under the tool: " + no_gpu;
    } else if (rc == 0 || rc == 1) {
      // The run's own verdict (0 passed, 1 incorrect) is the plain verify's business here.
      r.status = "passed";
    } else if (rc == 3) {
      r.status = "FAILED";
      r.detail = "the run under the tool failed: " + telling_line(r.log);
    } else {
      // The tool or the driver refused (no supported GPU, debugger interface disabled, ...).
      r.status = "SKIPPED";
      r.detail = "exit " + std::to_string(rc) + ": " + telling_line(r.log);
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace rope2d::verify
