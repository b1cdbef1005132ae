// Starting helper programs (nvcc, the Python runner) with an argument vector, never a shell:
// no argument is ever parsed as shell syntax, whatever it holds.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace rope2d::verify {

// A program's path from the PATH's absolute entries (then /usr/bin and /bin), the first
// executable file of that name; "" when none. A relative PATH entry is never used (it would
// depend on the working directory). posix_spawnp's own search is the same but for that and
// for its error, which cannot say what was looked for: callers resolve first and say so.
std::string find_program(const std::string& name);

// A helper program of this project's own (sincosf_ulp) for the program at `self` (empty: this
// one, /proc/self/exe): beside it (in a build tree, verify/, where the project builds its
// programs), then under its install prefix, <prefix>/libexec/rope2d/ (<prefix> the folder above
// self's bin/; libexec as GNUInstallDirs names it for the build). Never the working directory
// and never the PATH: a file planted there must not run as ours. The first executable regular
// file found, "" when none; `looked` gets the paths tried, in order, for the message.
std::string find_own_program(const std::string& name, std::vector<std::string>* looked = nullptr, const std::string& self = "");

// Where a child's stderr goes: with its stdout (to on_output; an empty path, the default),
// into a file (created or truncated), or to this process's own stderr, inherited as it is.
// Never reopen our stderr by a name such as /dev/stderr: the open happens in the child before
// the program runs, and fails (posix_spawn then reports "No such file or directory" as if the
// program were missing) where /dev/stderr or /proc is absent or fd 2 is closed, and with
// another error where fd 2 is a socket; where it works it truncates a log file 2> points to.
struct ChildStderr {
  std::string path;
  bool inherit = false;
  ChildStderr(std::string file = "") : path(std::move(file)) {}  // NOLINT: a path converts
  ChildStderr(const char* file) : path(file) {}                  // NOLINT: a path converts
  static ChildStderr inherited() {
    ChildStderr s;
    s.inherit = true;
    return s;
  }
};

struct SpawnResult {
  bool started = false;
  std::string start_error;  // why it did not start
  int status = -1;          // waitpid status
  bool timed_out = false;
  std::string exit_text() const;  // "exit 1", "signal 9 (Killed)", ...
  int code() const;               // as a shell says it: the exit code, 128 + a signal, 127 when not started
};

// Runs argv (argv[0] searched on PATH). Its stdout goes to on_output in chunks; its stderr as
// stderr_to says. After timeout_s seconds (0: none) it gets SIGTERM, then SIGKILL 5 s later. A
// non-empty cwd is the child's working directory.
SpawnResult run_program(const std::vector<std::string>& argv, const ChildStderr& stderr_to,
                        const std::function<void(const char*, std::size_t)>& on_output, double timeout_s = 0,
                        const std::string& cwd = "");

// Runs argv (argv[0] searched on PATH) with stdout and stderr to log_path (created or
// truncated) and env ("NAME=value" each) added to the inherited environment, replacing the
// same names; the same time limit as run_program.
SpawnResult run_logged(const std::vector<std::string>& argv, const std::string& log_path, const std::vector<std::string>& env = {},
                       double timeout_s = 0);

}  // namespace rope2d::verify
