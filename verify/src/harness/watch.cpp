// The watch (watch.hpp): the judge's side answers seccomp notifications through the kernel's
// ioctls; the filter itself is built with libseccomp in the watcher (ROPE2D_HAVE_SECCOMP).
#include "harness/watch.hpp"

#include "harness/host_protocol.hpp"  // wire::send_record, wire::receive_record: a descriptor over a socket
#include "codec/plain_text.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#ifdef ROPE2D_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace rope2d::verify::harness {

namespace {

constexpr std::size_t kept = 3;         // paths and addresses kept of each kind
constexpr std::size_t path_max = 4096;  // bytes of a path read from the child

// Where a call that may write names its paths: (path argument, its directory argument or -1);
// a path argument of -1: the call names a descriptor alone, its directory argument.
struct PathArgs {
  long nr;
  int path, dir, path2, dir2;
};

// The calls the filter notifies that name files, for this machine's architecture.
const std::vector<PathArgs>& path_calls() {
  static const std::vector<PathArgs> calls = {
      {SYS_openat, 1, 0, -1, -1},      {SYS_openat2, 1, 0, -1, -1},     {SYS_mkdirat, 1, 0, -1, -1},
      {SYS_unlinkat, 1, 0, -1, -1},    {SYS_renameat, 1, 0, 3, 2},      {SYS_renameat2, 1, 0, 3, 2},
      {SYS_linkat, 3, 2, -1, -1},      {SYS_symlinkat, 2, 1, -1, -1},   {SYS_truncate, 0, -1, -1, -1},
      {SYS_mknodat, 1, 0, -1, -1},     {SYS_fchmodat, 1, 0, -1, -1},    {SYS_fchownat, 1, 0, -1, -1},
      {SYS_utimensat, 1, 0, -1, -1},   {SYS_setxattr, 0, -1, -1, -1},   {SYS_lsetxattr, 0, -1, -1, -1},
      {SYS_removexattr, 0, -1, -1, -1}, {SYS_lremovexattr, 0, -1, -1, -1}, {SYS_fchmod, -1, 0, -1, -1},
      {SYS_fchown, -1, 0, -1, -1},     {SYS_fsetxattr, -1, 0, -1, -1},  {SYS_fremovexattr, -1, 0, -1, -1},
#ifdef SYS_fchmodat2
      {SYS_fchmodat2, 1, 0, -1, -1},
#endif
#ifdef SYS_open  // the older calls without a folder argument, where the architecture has them (x86-64's table)
      {SYS_open, 0, -1, -1, -1},       {SYS_creat, 0, -1, -1, -1},      {SYS_mkdir, 0, -1, -1, -1},
      {SYS_rmdir, 0, -1, -1, -1},      {SYS_unlink, 0, -1, -1, -1},     {SYS_rename, 0, -1, 1, -1},
      {SYS_link, 1, -1, -1, -1},       {SYS_symlink, 1, -1, -1, -1},    {SYS_mknod, 0, -1, -1, -1},
      {SYS_chmod, 0, -1, -1, -1},      {SYS_chown, 0, -1, -1, -1},      {SYS_lchown, 0, -1, -1, -1},
      {SYS_utimes, 0, -1, -1, -1},     {SYS_utime, 0, -1, -1, -1},
#endif
  };
  return calls;
}

// Bytes of the child's memory at `addr`, page by page (a string may end before an unmapped
// page); fewer than asked where the memory ends.
std::string read_memory(int pid, std::uint64_t addr, std::size_t len, bool to_nul) {
  std::string out;
  const int fd = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  while (out.size() < len) {
    char buf[4096];
    const std::size_t page_left = 4096 - (addr + out.size()) % 4096;
    const std::size_t want = std::min<std::size_t>({page_left, len - out.size(), sizeof buf});
    const ssize_t got = ::pread(fd, buf, want, static_cast<off_t>(addr + out.size()));
    if (got <= 0) break;
    const void* nul = to_nul ? std::memchr(buf, 0, static_cast<std::size_t>(got)) : nullptr;
    out.append(buf, nul ? static_cast<const char*>(nul) - buf : got);
    if (nul) break;
  }
  ::close(fd);
  return out;
}

std::string link_target(const std::string& link) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink(link, ec);
  return ec ? std::string() : p.string();
}

// The absolute path a call names: `path` as given, or under its directory descriptor or the
// child's working folder; "" where that folder cannot be named (deeper than a link can say, or
// gone): where the call wrote is then unknown, and it is not counted.
// An empty path names the directory argument itself (a call on a descriptor; utimensat's null
// path); a descriptor that is no file (a pipe, a socket) names nothing.
std::string absolute(int pid, const std::string& path, long dirfd) {
  if (!path.empty() && path[0] == '/') return std::filesystem::path(path).lexically_normal().string();
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string base = static_cast<int>(dirfd) == AT_FDCWD || dirfd < 0 ? link_target(proc + "/cwd")
                                                                            : link_target(proc + "/fd/" + std::to_string(dirfd));
  if (base.empty() || base[0] != '/') return "";
  if (path.empty()) return std::filesystem::path(base).lexically_normal().string();
  return (std::filesystem::path(base) / path).lexically_normal().string();
}

bool under(const std::string& path, const std::string& folder) {
  return path == folder || (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
                            (folder.back() == '/' || path[folder.size()] == '/'));
}

std::string address_words(const std::string& raw) {
  if (raw.size() < sizeof(sa_family_t)) return "";
  sa_family_t family;
  std::memcpy(&family, raw.data(), sizeof family);
  char text[INET6_ADDRSTRLEN] = "?";
  if (family == AF_INET && raw.size() >= sizeof(sockaddr_in)) {
    sockaddr_in a;
    std::memcpy(&a, raw.data(), sizeof a);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
  }
  if (family == AF_INET6 && raw.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 a;
    std::memcpy(&a, raw.data(), sizeof a);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(a.sin6_port));
  }
  return "";  // a Unix socket (the box's own) or another family: not a network connection
}

}  // namespace

std::string Refusals::words() const {
  if (!watched) return "not counted (no watch ran in the box)";
  if (!writes && !connections) return "nothing (no write outside the scratch folder and /tmp, no network connection)";
  auto list = [](const std::vector<std::string>& v) {
    std::string t;
    for (const std::string& x : v) t += (t.empty() ? "" : ", ") + plain_line(x);  // the child named them: shown as text
    return t;
  };
  std::string s;
  if (writes) s += std::to_string(writes) + " write(s) outside the scratch folder and /tmp (" + list(write_paths) + ")";
  if (connections) s += (s.empty() ? "" : "; ") + std::to_string(connections) + " network connection(s) (" + list(addresses) + ")";
  return s;
}

void Refusals::add(const Refusals& o) {
  watched = watched || o.watched;
  writes += o.writes;
  connections += o.connections;
  for (const std::string& p : o.write_paths)
    if (write_paths.size() < kept) write_paths.push_back(p);
  for (const std::string& a : o.addresses)
    if (addresses.size() < kept) addresses.push_back(a);
}

#ifdef ROPE2D_HAVE_SECCOMP
namespace {

// The calls the box refuses itself: io_uring, whose operations (open, connect, socket) pass by
// every filter, as Docker's default profile refuses it. (Unix sockets cannot be refused: the
// CUDA driver makes two as it starts, and fails without them, as seen on an H100; the daemons'
// socket files under /run are hidden from the box instead.)
int add_refusals(scmp_filter_ctx ctx) {
  int rc = 0;
  for (const char* name : {"io_uring_setup", "io_uring_enter", "io_uring_register"}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr != __NR_SCMP_ERROR && nr >= 0) rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  }
  return rc;
}

// Where the watch cannot be installed (a kernel without user notifications, say), the box's
// refusals all the same, uncounted; "" or why not.
std::string refuse_uncounted() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return "seccomp_init failed";
  int rc = add_refusals(ctx);
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  return rc == 0 ? "" : std::string("seccomp: ") + std::strerror(-rc);
}

}  // namespace
#endif

std::string install_watch(int fd) {
#ifdef ROPE2D_HAVE_SECCOMP
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return "seccomp_init failed";
  int rc = 0;
  for (const char* name : {"creat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
                           "link", "linkat", "symlink", "symlinkat", "truncate", "openat2", "connect", "mknod", "mknodat",
                           "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchown", "fchownat", "utime",
                           "utimes", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
                           "fremovexattr"}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr != __NR_SCMP_ERROR && nr >= 0) rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
  }
  rc = rc ? rc : add_refusals(ctx);
  for (const unsigned long bit : {static_cast<unsigned long>(O_WRONLY), static_cast<unsigned long>(O_RDWR),
                                  static_cast<unsigned long>(O_CREAT), static_cast<unsigned long>(O_TRUNC)}) {
    const int open_nr = seccomp_syscall_resolve_name("open");
    if (open_nr != __NR_SCMP_ERROR && open_nr >= 0)
      rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, open_nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit));
    rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit));
  }
  rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0));
  if (rc == 0) rc = seccomp_load(ctx);
  const int listener = rc == 0 ? seccomp_notify_fd(ctx) : -1;
  seccomp_release(ctx);
  if (rc != 0 || listener < 0) {
    const std::string why = std::string("seccomp: ") + std::strerror(rc ? -rc : errno);
    const std::string fallback = refuse_uncounted();
    ::close(fd);
    return why + (fallback.empty() ? "; io_uring refused all the same" : "; nor io_uring refused (" + fallback + ")");
  }
  const char one = 'w';
  const bool sent = wire::send_record(fd, &one, 1, listener);
  const int err = errno;
  ::close(listener);  // nothing in the box keeps it: only the judge answers
  ::close(fd);
  return sent ? "" : std::string("cannot hand the watch to the judge: ") + std::strerror(err);
#else
  ::close(fd);
  return "built without libseccomp";
#endif
}

Watch::Watch(int fd, std::vector<std::string> writable) : writable_(std::move(writable)) {
  thread_ = std::thread([this, fd] { serve(fd); });
}

Watch::~Watch() { finish(); }

Refusals Watch::finish() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  std::lock_guard lk(m_);
  return r_;
}

void Watch::note(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (path.empty()) continue;  // where it is cannot be said (absolute())
    bool allowed = false;
    for (const std::string& w : writable_) allowed = allowed || under(path, w);
    if (allowed) continue;
    std::lock_guard lk(m_);
    ++r_.writes;  // one call, counted once: its first path outside
    if (r_.write_paths.size() < kept) r_.write_paths.push_back(path.substr(0, 256));
    return;
  }
}

void Watch::note_address(int pid, std::uint64_t addr, std::uint64_t len) {
  const std::string words = address_words(read_memory(pid, addr, std::min<std::uint64_t>(len, 128), false));
  if (words.empty()) return;
  std::lock_guard lk(m_);
  ++r_.connections;
  if (r_.addresses.size() < kept) r_.addresses.push_back(words);
}

void Watch::serve(int sock) {
  int listener = -1;
  while (!stop_ && listener < 0) {  // the watcher hands its descriptor over as the box starts
    pollfd q{sock, POLLIN, 0};
    if (::poll(&q, 1, 100) <= 0) continue;
    unsigned char one[1];
    if (wire::receive_record(sock, one, sizeof one, &listener) != 1 || listener < 0) {
      if (listener >= 0) ::close(listener);
      listener = -1;
      break;  // the box closed its end without a watch, or sent something else
    }
  }
  ::close(sock);
  if (listener < 0) return;
  {
    std::lock_guard lk(m_);
    r_.watched = true;
  }
  while (!stop_) {
    pollfd q{listener, POLLIN, 0};
    if (::poll(&q, 1, 100) <= 0) continue;
    if (q.revents & (POLLHUP | POLLERR)) break;  // every process of the box has ended
    seccomp_notif req{};
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) continue;  // its caller died meanwhile
    const auto& a = req.data.args;
    const int pid = static_cast<int>(req.pid);
    seccomp_notif_resp resp{};
    resp.id = req.id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;  // the box's own mounts and namespaces decide
    if (req.data.nr == SYS_connect) {
      note_address(pid, a[1], a[2]);
    } else if (req.data.nr == SYS_sendto) {
      note_address(pid, a[4], a[5]);
    } else {
      for (const PathArgs& c : path_calls()) {
        if (c.nr != req.data.nr) continue;
        auto named = [&](int path, int dir) {
          const std::string given = path < 0 ? std::string() : read_memory(pid, a[path], path_max, true);
          // An empty or unreadable path names nothing; a null one (utimensat's) the descriptor.
          if (path >= 0 && given.empty() && (a[path] != 0 || dir < 0)) return std::string();
          return absolute(pid, given, dir < 0 ? -1 : static_cast<long>(a[dir]));
        };
        std::vector<std::string> paths{named(c.path, c.dir)};
        if (c.path2 >= 0) paths.push_back(named(c.path2, c.dir2));
        note(paths);
        break;
      }
    }
    (void)::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
  }
  ::close(listener);
}

}  // namespace rope2d::verify::harness
