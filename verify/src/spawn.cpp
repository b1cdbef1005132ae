// posix_spawn with a pipe for the child's output and a time limit (spawn.hpp).
#include "rope2d/verify/spawn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace rope2d::verify {

std::string SpawnResult::exit_text() const {
  if (!started) return "not started: " + start_error;
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

SpawnResult run_program(const std::vector<std::string>& argv, const std::string& stderr_path,
                        const std::function<void(const char*, std::size_t)>& on_output, double timeout_s,
                        const std::string& cwd) {
  SpawnResult r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.start_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  if (stderr_path.empty()) posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  else posix_spawn_file_actions_addopen(&fa, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());  // after the open: stderr_path as given
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    r.start_error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  r.started = true;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  double killed_at = -1;
  char buf[65536];
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int k = ::poll(&p, 1, 200);
    if (k > 0) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (on_output) on_output(buf, static_cast<std::size_t>(n));
    }
    if (timeout_s > 0 && elapsed() > timeout_s && killed_at < 0) {
      r.timed_out = true;
      ::kill(pid, SIGTERM);
      killed_at = elapsed();
    }
    if (killed_at >= 0 && elapsed() > killed_at + 5) {
      ::kill(pid, SIGKILL);
      break;
    }
  }
  ::close(fds[0]);
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  return r;
}

}  // namespace rope2d::verify
