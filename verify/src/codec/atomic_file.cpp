// Outputs written whole or not at all: checked writes into a unique temporary file beside the
// target, fsync, then rename into place (atomic_file.hpp); only over a regular file or nothing.
#include "codec/atomic_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
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

std::string file_kind(const std::string& path) {
  // "link/" would name the folder a link points to: the name itself is judged.
  std::string name = path;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  struct stat st {};
  if (::lstat(name.c_str(), &st) != 0) return "";  // nothing there (or a parent that is no folder: the write says so)
  const mode_t m = st.st_mode;
  return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "a special file";
}

namespace {

std::string named(const std::string& path, const std::string& label) { return (label.empty() ? "" : label + " ") + path; }

}  // namespace

void require_output_file(const std::string& path, const std::string& label) {
  const std::string kind = file_kind(path);
  if (!kind.empty() && kind != "a regular file")
    throw std::invalid_argument(named(path, label) + ": expected a regular file or nothing, found " + kind);
}

void require_output_folder(const std::string& dir, const std::string& label) {
  const std::string kind = file_kind(dir);
  if (!kind.empty() && kind != "a directory")
    throw std::invalid_argument(named(dir, label) + ": expected a directory or nothing, found " + kind);
}

void make_output_folder(const std::string& dir, const std::string& label) {
  require_output_folder(dir, label);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::invalid_argument(named(dir, label) + ": cannot create the directory (" + ec.message() + ")");
}

void require_output_tree(const std::string& dir, const std::string& label) {
  require_output_folder(dir, label);
  if (file_kind(dir).empty()) return;  // nothing there yet
  std::error_code ec;
  // The iterator never follows a link to a folder: each entry is judged as it stands.
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string kind = file_kind(it->path().string());
    if (kind != "a regular file" && kind != "a directory")
      throw std::invalid_argument(named(it->path().string(), label) + ": expected a regular file or a directory, found " + kind);
  }
  if (ec) throw std::invalid_argument(named(dir, label) + ": cannot read the folder (" + ec.message() + ")");
}

void require_local_output_folder(const std::string& dir, const std::string& label) {
  const std::filesystem::path p(dir);
  if (p.is_absolute()) return;
  std::filesystem::path prefix;
  for (const auto& part : p) {
    if (part.empty() || part == ".") continue;
    require_output_folder((prefix /= part).string(), label);
  }
}

namespace {

// The parts written to a fresh temporary file beside path (unique name), every write, fsync and
// close checked (a full disk is an error); returns the temporary file's name.
std::string stage_file(const std::string& path, const std::vector<std::string_view>& parts, const std::function<bool()>& stop = {}) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  // Named after the target, cut so that the name stays within a file name's 255 bytes (the
  // target's own name may be that long); mkstemp's six letters make it unique.
  const std::string stem = "." + target.filename().string().substr(0, 200) + ".XXXXXX";
  std::string tmpl = target.parent_path().empty() ? stem : (target.parent_path() / stem).string();
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
  require_output_file(path);
  const std::string tmp = stage_file(path, parts, stop);
  try {
    require_output_file(path);  // what came there while the file was written
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::invalid_argument(path + ": cannot rename into place (" + why + ")");
  }
}

void copy_file_atomic(const std::string& from, const std::string& to) {
  const int fd = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::invalid_argument(from + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::invalid_argument(from + ": expected a regular file");
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  void* map = size ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  ::close(fd);
  if (map == MAP_FAILED) throw std::invalid_argument(from + ": cannot map (" + std::strerror(errno) + ")");
  try {
    write_file_atomic(to, {std::string_view(static_cast<const char*>(map), size)});
  } catch (...) {
    if (map) ::munmap(map, size);
    throw;
  }
  if (map) ::munmap(map, size);
}

void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> staged;
  auto drop = [&](std::size_t from) {
    for (std::size_t k = from; k < staged.size(); ++k) ::unlink(staged[k].c_str());
  };
  for (const auto& f : files) require_output_file(f.first);  // before anything is staged
  try {
    for (const auto& [path, text] : files) staged.push_back(stage_file(path, {text}));
    for (const auto& f : files) require_output_file(f.first);
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
