// A file opened once beneath a submitter's folder (folder_file.hpp): by openat2 where the
// kernel has it, else by a walk of O_NOFOLLOW opens, then read from that one descriptor.
#include "codec/folder_file.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

namespace rope2d::verify {

namespace {

// A descriptor, closed on every way out.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A descriptor, or why not (an errno value).
struct Opened {
  Fd fd;
  int error = 0;
};

// O_NONBLOCK: opening a FIFO with no writer would otherwise wait for ever.
constexpr int read_flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
constexpr int max_links = 40;  // the kernel's own limit of links on one path

Opened failed(int error) { return {Fd(), error}; }

// The path's components, '.' and empty ones dropped, pushed so that the first is at the back.
void push_components(const std::string& path, std::vector<std::string>& todo) {
  std::vector<std::string> parts;
  for (std::size_t b = 0; b <= path.size();) {
    const std::size_t e = std::min(path.find('/', b), path.size());
    if (e > b && path.compare(b, e - b, ".") != 0) parts.push_back(path.substr(b, e - b));
    b = e + 1;
  }
  todo.insert(todo.end(), parts.rbegin(), parts.rend());
}

// The kernel resolves: RESOLVE_BENEATH refuses (EXDEV) a ".." above the folder, an absolute
// path or link, and any link whose resolution leaves it, at the moment of the open itself.
Opened by_kernel(int dir, const std::string& rel, FolderLinks links) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = read_flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (links == FolderLinks::none ? RESOLVE_NO_SYMLINKS : 0);
  for (int tries = 0;; ++tries) {
    const long fd = ::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how);
    if (fd >= 0) return {Fd(static_cast<int>(fd))};
    // EAGAIN: a rename elsewhere on the system raced a ".." of the resolution; the kernel asks
    // for another try rather than risk an escape.
    if ((errno != EAGAIN && errno != EINTR) || tries == 16) return failed(errno);
  }
#else
  (void)dir, (void)rel, (void)links;
  return failed(ENOSYS);
#endif
}

// The same rules, one component at a time: each opened with O_NOFOLLOW from the descriptor of
// the folder above it (so nothing renamed meanwhile moves the walk out), ".." taken from the
// walk's own stack of folders (never above the first), a link's text read and walked in its
// place (an absolute one refused).
Opened by_walk(int dir, const std::string& rel, FolderLinks links) {
  std::vector<Fd> folders;  // walked into, below `dir`
  std::vector<std::string> todo;
  push_components(rel, todo);
  int followed = 0;
  while (!todo.empty()) {
    const std::string c = std::move(todo.back());
    todo.pop_back();
    const int at = folders.empty() ? dir : folders.back().fd;
    if (c == "..") {
      if (folders.empty()) return failed(EXDEV);
      folders.pop_back();
      continue;
    }
    const bool last = todo.empty();
    Fd fd(::openat(at, c.c_str(), (last ? read_flags : O_PATH | O_DIRECTORY | O_CLOEXEC) | O_NOFOLLOW));
    if (fd.fd >= 0) {
      if (last) return {std::move(fd)};
      folders.push_back(std::move(fd));
      continue;
    }
    const int error = errno;  // a link: ELOOP as the last component, ENOTDIR before it
    if (error != ELOOP && error != ENOTDIR) return failed(error);
    std::string target(PATH_MAX, '\0');
    const ssize_t k = ::readlinkat(at, c.c_str(), target.data(), target.size());
    if (k < 0) return failed(error);  // not a link (or no longer one): what the open said
    if (links == FolderLinks::none || ++followed > max_links) return failed(ELOOP);
    target.resize(static_cast<std::size_t>(k));
    if (target.empty() || target[0] == '/') return failed(EXDEV);
    push_components(target, todo);
  }
  return failed(EISDIR);  // the path names the folder itself or one above it, not a file
}

}  // namespace

SubmitterFolder::SubmitterFolder(const std::string& path) : path_(path.empty() ? "." : path) {
  const int fd = ::open(path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error_ = "the folder " + path_ + ": " + std::strerror(errno);
    return;
  }
  fd_ = std::shared_ptr<const int>(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
}

FolderFile read_inside_folder(const std::string& folder, const std::string& rel, std::uint64_t max_bytes,
                              FolderLinks links, FolderResolve how) {
  return SubmitterFolder(folder).read(rel, max_bytes, links, how);
}

FolderFile SubmitterFolder::read(const std::string& rel, std::uint64_t max_bytes, FolderLinks links, FolderResolve how) const {
  FolderFile r;
  const auto found = [&](FolderFile::Found f, const std::string& why = "") {
    r.found = f;
    r.error = why;
    return std::move(r);
  };
  if (!rel.empty() && rel[0] == '/') return found(FolderFile::Found::outside);
  if (rel.empty() || rel.find('\0') != std::string::npos) return found(FolderFile::Found::missing);
  if (!fd_) return found(FolderFile::Found::unreadable, error_);
  Opened o = how == FolderResolve::best ? by_kernel(*fd_, rel, links) : failed(ENOSYS);
  if (o.fd.fd < 0 && o.error == ENOSYS) o = by_walk(*fd_, rel, links);
  if (o.fd.fd < 0) switch (o.error) {
      case ENOENT:
      case ENOTDIR: return found(FolderFile::Found::missing);
      case EXDEV: return found(FolderFile::Found::outside);
      case ELOOP:
        if (links == FolderLinks::none) return found(FolderFile::Found::outside);
        return found(FolderFile::Found::unreadable, std::strerror(ELOOP));
      case EISDIR:
      case ENXIO: return found(FolderFile::Found::not_regular);  // ENXIO: a socket
      default: return found(FolderFile::Found::unreadable, std::strerror(o.error));
    }
  struct stat st {};
  if (::fstat(o.fd.fd, &st) != 0) return found(FolderFile::Found::unreadable, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return found(FolderFile::Found::not_regular);
  r.size = static_cast<std::uint64_t>(st.st_size);
  if (r.size > max_bytes) return found(FolderFile::Found::too_big);
  // Read to the end, not to the size fstat gave: a file that grows meanwhile is still capped.
  r.text.reserve(static_cast<std::size_t>(r.size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t k = ::read(o.fd.fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return found(FolderFile::Found::unreadable, std::strerror(errno));
    if (k == 0) break;
    if (r.text.size() + static_cast<std::uint64_t>(k) > max_bytes) {
      r.size = r.text.size() + static_cast<std::uint64_t>(k);
      r.text.clear();
      return found(FolderFile::Found::too_big);
    }
    r.text.append(buf, static_cast<std::size_t>(k));
  }
  r.size = r.text.size();
  return found(FolderFile::Found::file);
}

bool lies_within(const std::filesystem::path& path, const std::filesystem::path& folder) {
  std::error_code e1, e2;
  const std::filesystem::path rel = std::filesystem::weakly_canonical(path, e1).lexically_relative(std::filesystem::weakly_canonical(folder, e2));
  return !e1 && !e2 && !rel.empty() && *rel.begin() != "..";
}

}  // namespace rope2d::verify
