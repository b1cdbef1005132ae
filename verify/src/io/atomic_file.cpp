// Outputs written whole or not at all: checked writes into a unique temporary file beside the
// target, fsync, then rename into place (atomic_file.hpp).
#include "rope2d/verify/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>

namespace rope2d::verify {

namespace {

// The parts written to a fresh temporary file beside path (unique name), every write, fsync and
// close checked (a full disk is an error); returns the temporary file's name.
std::string stage_file(const std::string& path, const std::vector<std::string_view>& parts, const std::function<bool()>& stop = {}) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::string tmpl = (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  if (target.parent_path().empty()) tmpl = "." + target.filename().string() + ".XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw std::invalid_argument(path + ": cannot create a file beside it (" + std::strerror(errno) + ")");
  auto fail = [&](const char* what) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw std::invalid_argument(path + ": " + what + " failed (" + why + ")");
  };
  constexpr std::size_t piece = std::size_t{16} << 20;  // between pieces, `stop` is asked
  for (std::string_view p : parts) {
    while (!p.empty()) {
      if (stop && stop()) {
        errno = EINTR;
        fail("write (interrupted)");
      }
      const ssize_t k = ::write(fd, p.data(), std::min(p.size(), piece));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) fail("write");
      p.remove_prefix(static_cast<std::size_t>(k));
    }
  }
  if (::fchmod(fd, 0644) != 0) fail("chmod");
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw std::invalid_argument(path + ": close failed (" + why + ")");
  }
  return tmpl;
}

}  // namespace

void write_file_atomic(const std::string& path, const std::vector<std::string_view>& parts, const std::function<bool()>& stop) {
  const std::string tmp = stage_file(path, parts, stop);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::invalid_argument(path + ": cannot rename into place (" + why + ")");
  }
}

void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> staged;
  auto drop = [&](std::size_t from) {
    for (std::size_t k = from; k < staged.size(); ++k) ::unlink(staged[k].c_str());
  };
  try {
    for (const auto& [path, text] : files) staged.push_back(stage_file(path, {text}));
  } catch (...) {
    drop(0);
    throw;
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (std::rename(staged[k].c_str(), files[k].first.c_str()) == 0) continue;
    const std::string why = std::strerror(errno);
    drop(k);
    for (std::size_t j = 0; j < k; ++j) ::unlink(files[j].first.c_str());  // none of them, rather than some
    throw std::invalid_argument(files[k].first + ": cannot rename into place (" + why + ")");
  }
}

}  // namespace rope2d::verify
