// A one-line progress display on stderr for long runs (rewritten in place on a terminal,
// one line per step otherwise); silent when quiet.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace rope2d::cli {

class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {}
  void step(std::size_t i, std::size_t n, const std::string& what) {
    if (quiet_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = fmt::format("[{:>3}/{}] {:6.1f}s {}", i + 1, n, s, what);
    if (tty_) fmt::print(stderr, "\r\033[K{}", line);
    else fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
  }
  void done() {
    if (!quiet_ && tty_) fmt::print(stderr, "\r\033[K");
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace rope2d::cli
