// Starting helper programs (nvcc, the Python runner) with an argument vector, never a shell:
// no argument is ever parsed as shell syntax, whatever it holds.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace rope2d::verify {

struct SpawnResult {
  bool started = false;
  std::string start_error;  // why it did not start
  int status = -1;          // waitpid status
  bool timed_out = false;
  std::string exit_text() const;  // "exit 1", "signal 9 (Killed)", ...
  int code() const;               // as a shell says it: the exit code, 128 + a signal, 127 when not started
};

// Runs argv (argv[0] searched on PATH). Its stdout goes to on_output in chunks; its stderr
// too when stderr_path is empty, else to that file. After timeout_s seconds (0: none) it gets
// SIGTERM, then SIGKILL 5 s later. A non-empty cwd is the child's working directory.
SpawnResult run_program(const std::vector<std::string>& argv, const std::string& stderr_path,
                        const std::function<void(const char*, std::size_t)>& on_output, double timeout_s = 0,
                        const std::string& cwd = "");

// Runs argv (argv[0] searched on PATH) with stdout and stderr to log_path (created or
// truncated) and env ("NAME=value" each) added to the inherited environment, replacing the
// same names; the same time limit as run_program.
SpawnResult run_logged(const std::vector<std::string>& argv, const std::string& log_path, const std::vector<std::string>& env = {},
                       double timeout_s = 0);

}  // namespace rope2d::verify
