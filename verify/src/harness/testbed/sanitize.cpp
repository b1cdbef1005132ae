// Re-executing rope2d under compute-sanitizer with an argument vector (no shell).
#include "harness/testbed/sanitize.hpp"

#include <filesystem>
#include <fstream>

#include "harness/spawn.hpp"

namespace rope2d::verify {

namespace {

constexpr int error_exit = 86;  // the tool's exit code when it found errors
constexpr int exec_failed = 127;  // SpawnResult::code() when it could not start

// The first line of the log that names an error, else its last non-empty line.
std::string telling_line(const std::string& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("ERROR") != std::string::npos || line.find("Error") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

std::string line_with(const std::string& log, const std::string& word) {
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find(word) != std::string::npos) return line;
  return "";
}

}  // namespace

std::vector<SanitizerResult> run_sanitizers(const std::string& sanitizer, const std::string& self,
                                            const std::vector<std::string>& args, const std::string& out_dir) {
  std::filesystem::create_directories(out_dir);
  std::vector<SanitizerResult> out;
  for (const char* tool : {"memcheck", "racecheck", "initcheck"}) {
    SanitizerResult r{tool, "", "", out_dir + "/" + tool + ".log"};
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
