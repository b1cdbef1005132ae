// posix_spawn with a pipe for the child's output or a log file, and a time limit (spawn.hpp).
#include "harness/spawn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

extern char** environ;

namespace rope2d::verify {

namespace {

// The inherited environment with `extra` ("NAME=value") replacing or adding entries.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const std::string& x : extra)
      replaced = replaced || entry.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0;
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// posix_spawnp of argv with the file actions fa and the environment (extra added); fills r.
pid_t start(const std::vector<std::string>& argv, const posix_spawn_file_actions_t& fa, const std::vector<std::string>& extra,
            SpawnResult& r) {
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = environment_with(extra);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), extra.empty() ? environ : envp.data());
  if (rc != 0) {
    r.start_error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  r.started = true;
  return pid;
}

}  // namespace

int SpawnResult::code() const {
  if (!started) return 127;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

std::string SpawnResult::exit_text() const {
  if (!started) return "not started: " + start_error;
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

std::string find_program(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return "";
  const char* env = std::getenv("PATH");
  std::string path = env ? env : "";
  path += ":/usr/bin:/bin";
  for (std::size_t b = 0, e = 0; b <= path.size(); b = e + 1) {
    e = std::min(path.find(':', b), path.size());
    const std::string dir = path.substr(b, e - b);
    if (dir.empty() || dir[0] != '/') continue;  // never a relative PATH entry
    const std::string p = dir + "/" + name;
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

std::string find_own_program(const std::string& name, std::vector<std::string>* looked, const std::string& self) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = self.empty() ? fs::read_symlink("/proc/self/exe", ec) : fs::path(self);
  if (ec || name.empty() || name.find('/') != std::string::npos) return "";
  // An absolute libexec (set so at configure time) replaces the prefix: path / "/x" is "/x".
  for (const fs::path& p : {exe.parent_path() / name, exe.parent_path().parent_path() / ROPE2D_INSTALL_LIBEXECDIR / "rope2d" / name}) {
    if (looked) looked->push_back(p.string());
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

SpawnResult run_program(const std::vector<std::string>& argv, const ChildStderr& stderr_to,
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
  if (stderr_to.inherit) {
    // fd 2 stays the one we have: no file action at all.
  } else if (stderr_to.path.empty()) {
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, stderr_to.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());  // after the open: the path as given
  const pid_t pid = start(argv, fa, {}, r);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return r;
  }
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

SpawnResult run_logged(const std::vector<std::string>& argv, const std::string& log_path, const std::vector<std::string>& env,
                       double timeout_s) {
  SpawnResult r;
  if (argv.empty()) {
    r.start_error = "no program";
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  const pid_t pid = start(argv, fa, env, r);
  posix_spawn_file_actions_destroy(&fa);
  if (pid < 0) return r;
  const auto t0 = std::chrono::steady_clock::now();
  double killed_at = -1;
  for (;;) {
    const pid_t w = ::waitpid(pid, &r.status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (timeout_s > 0 && t > timeout_s && killed_at < 0) r.timed_out = true, ::kill(pid, SIGTERM), killed_at = t;
    if (killed_at >= 0 && t > killed_at + 5) ::kill(pid, SIGKILL);
  }
  return r;
}

}  // namespace rope2d::verify
