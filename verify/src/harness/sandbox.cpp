// The box (sandbox.hpp): bubblewrap's namespaces and mounts, the limits and the drop to an
// unprivileged user set between fork and exec (async-signal-safe calls only there: the
// verifier has CUDA threads), the wall clock and the output kept by the parent.
#include "harness/sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "codec/folder_file.hpp"
#include "codec/plain_text.hpp"

namespace rope2d::verify::harness {

namespace fs = std::filesystem;

namespace {

// The absolute entries of a search path variable of the caller's: a relative or empty one
// would name the box's working folder, the scratch folder the submission writes in (a library
// or program planted there would be found).
std::vector<std::string> absolute_entries(const char* name) {
  const char* value = std::getenv(name);
  const std::string given = value ? value : "";
  std::vector<std::string> kept;
  for (std::size_t b = 0, e = 0; b <= given.size(); b = e + 1) {
    e = std::min(given.find(':', b), given.size());
    if (std::string dir = given.substr(b, e - b); !dir.empty() && dir[0] == '/') kept.push_back(std::move(dir));
  }
  return kept;
}

// The folders that hold the system's programs, libraries and configuration: nothing runs in a
// box without them (hideable, require_hideable_home).
constexpr const char* system_folders[] = {"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"};

// Whether box_uid() may read (S_IROTH) or search (S_IXOTH) the file at `p`: by the owner's bits
// where it owns it (its scratch folder), else by the others' bits.
bool box_may(const fs::path& p, mode_t others_bit) {
  struct stat st{};
  if (::stat(p.c_str(), &st) != 0) return false;
  return st.st_mode & (st.st_uid == box_uid() ? others_bit << 6 : others_bit);
}

// The first folder above `path` that box_uid() may not search (by box_may), or an empty path.
fs::path unsearchable_above(const std::string& path) {
  fs::path prefix;
  for (const auto& part : fs::path(path).parent_path())
    if (!box_may(prefix /= part, S_IXOTH)) return prefix;
  return {};
}

// Whether the box's user can search every folder above `path`: always with the caller's own
// rights; dropping from root to box_uid(), by box_may.
bool box_can_search_above(const std::string& path, bool dropping) {
  return !dropping || unsearchable_above(path).empty();
}

// Whether the box's user can read `path` (and search it, a folder) and search every folder
// above it. A path it cannot reach is not revealed (bwrap would refuse to start).
bool box_can_reach(const std::string& path, bool dropping) {
  if (!dropping) return ::access(path.c_str(), R_OK) == 0;
  if (!box_can_search_above(path, true) || !box_may(path, S_IROTH)) return false;
  return !fs::is_directory(path) || box_may(path, S_IXOTH);
}

// What p.hide hides, each once, as real paths (true: a folder): one inside another is hidden with
// it (a mount over the inner one would lie under the outer one's and could not be made
// read-only); what does not exist, what may not be hidden (hideable) and what lies under a folder
// the box's user cannot search (root's home, to the unprivileged user a root caller's box runs
// as: out of sight already, and bwrap could not reach it to mount over it) are left out.
std::vector<std::pair<std::string, bool>> hidden_paths(const BoxPolicy& p) {
  std::vector<std::pair<std::string, bool>> hide;
  for (const std::string& h : p.hide) {
    std::error_code ec;
    const fs::file_status s = fs::symlink_status(h, ec);
    if (ec || !fs::exists(s)) continue;
    const std::string real = fs::canonical(h, ec).string();
    if (ec || !hideable(real) || !box_can_search_above(real, ::geteuid() == 0)) continue;
    if (std::none_of(hide.begin(), hide.end(), [&](const auto& o) { return o.first == real; }))
      hide.emplace_back(real, fs::is_directory(s) || fs::is_directory(real));
  }
  // Decided over the whole list before any is dropped (an erase_if would read the entries it
  // has moved from: empty paths, above everything).
  std::vector<std::pair<std::string, bool>> outermost;
  for (const auto& x : hide)
    if (std::none_of(hide.begin(), hide.end(), [&](const auto& o) { return o.second && x.first.rfind(o.first + "/", 0) == 0; }))
      outermost.push_back(x);
  return outermost;
}

// The limit outside the box on a uid of this process's own: the box's limit, and bubblewrap's
// two processes (its monitor outside the box, its PID 1 inside, which the limit set inside does
// not reach), and a few for the PID 1 of an earlier box of this process, which ends as a zombie
// until its reaper (init, or the verify parent, a subreaper that reaps at the end of the run)
// collects it. The kernel holds a fork to the forking task's own limit over the uid's tasks in
// its user namespace, and to the limit the namespace's maker had (bubblewrap, under this one)
// over all the uid's tasks: a submission that traces PID 1 and makes it fork is held to this.
rlim_t own_uid_task_limit(const Limits& l) { return l.processes + 8; }

// The cap on the tasks of all boxes of the user together (the caller's, or the shared uid),
// set outside the box: it binds what the process limit set inside (prlimit) does not reach,
// bubblewrap's own PID 1 in the box, which a submission of the same uid may trace and make
// start processes of its own. A quarter of what the machine allows (PIDs, threads), at least
// one box's limit, never above the caller's own hard limit.
rlim_t all_boxes_task_cap(const Limits& l) {
  std::uint64_t pid_max = 32768, threads_max = 32768;
  std::ifstream("/proc/sys/kernel/pid_max") >> pid_max;
  std::ifstream("/proc/sys/kernel/threads-max") >> threads_max;
  rlimit own{};
  if (::getrlimit(RLIMIT_NPROC, &own) != 0) own.rlim_max = RLIM_INFINITY;
  return std::min<rlim_t>(own.rlim_max, std::max<rlim_t>(l.processes, std::min(pid_max, threads_max) / 4));
}

// The process limit of a box: its own (set in it where prlimit is), never above the cap outside
// where it shares a uid with other boxes.
rlim_t box_task_limit(const Limits& l) { return own_uid() ? l.processes : std::min<rlim_t>(l.processes, all_boxes_task_cap(l)); }

// The mounts and namespaces, then the command.
std::vector<std::string> bwrap_argv(const std::string& bwrap, const BoxPolicy& p, int info_fd,
                                    const std::vector<std::string>& argv) {
  // The box's /tmp is memory: the smaller of its own limit and an eighth of the machine's memory.
  const std::uint64_t tmp_bytes = std::min<std::uint64_t>(p.limits.tmp_bytes, default_memory_limit() / 6);
  std::vector<std::string> a{bwrap,     "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                             "--ro-bind", "/",           "/",                 "--dev",         "/dev",       "--proc",
                             "/proc",     "--size",      std::to_string(tmp_bytes), "--tmpfs", "/tmp"};
  if (p.gpu) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev", ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("nvidia", 0) == 0) a.insert(a.end(), {"--dev-bind", e.path().string(), e.path().string()});
    }
  }
  // bwrap's /dev is memory of its own without a size (half the machine's): read-only once its
  // nodes are in place (--remount-ro below), and /dev/shm, where shared memory is made by name,
  // memory limited as /tmp is.
  a.insert(a.end(), {"--size", std::to_string(tmp_bytes), "--tmpfs", "/dev/shm"});
  std::vector<std::string> hidden;  // empty folders, read-only once what is revealed in them is mounted
  for (const auto& [real, folder] : hidden_paths(p)) {
    if (folder) {
      a.insert(a.end(), {"--size", "1048576", "--tmpfs", real});
      hidden.push_back(real);
    } else {
      a.insert(a.end(), {"--ro-bind", "/dev/null", real});
    }
  }
  for (const std::string& r : p.reveal) {
    std::error_code ec;
    const std::string real = fs::canonical(r, ec).string();
    if (!ec && box_can_reach(real, ::geteuid() == 0)) a.insert(a.end(), {"--ro-bind", real, real});
  }
  if (!p.scratch.empty()) a.insert(a.end(), {"--bind", p.scratch, p.scratch, "--chdir", p.scratch});
  for (const std::string& h : hidden) a.insert(a.end(), {"--remount-ro", h});
  a.insert(a.end(), {"--remount-ro", "/dev"});  // only /dev's own mount: /dev/shm and /dev/pts stay as they are
  a.insert(a.end(), {"--info-fd", std::to_string(info_fd), "--"});
  // The process limit set inside the box's user namespace, where the kernel counts the box's
  // tasks apart from every other box's of the same user (a fork bomb in one box cannot starve
  // another verify's); set outside, it would count all the user's tasks together. Never above
  // the hard limit set outside (prlimit could not raise it, and the box would not start).
  if (!prlimit_program().empty()) {
    const std::string n = std::to_string(box_task_limit(p.limits));
    a.insert(a.end(), {prlimit_program(), "--nproc=" + n + ":" + n, "--"});
  }
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

const std::string& bwrap_program() {
  static const std::string path = find_program("bwrap");
  return path;
}

// Where a boxed child may write (its refused writes are the others).
std::vector<std::string> writable(const BoxPolicy& p) {
  std::vector<std::string> w{"/tmp", "/dev", "/proc"};
  if (!p.scratch.empty()) {
    std::error_code ec;
    w.push_back(p.scratch);
    w.push_back(fs::weakly_canonical(p.scratch, ec).string());
  }
  return w;
}

thread_local bool probing = false;  // the trial run of probe_sandbox: no probe of the probe

struct Launch {
  pid_t pid = -1;
  int out_fd = -1, info_fd = -1, watch_fd = -1;
  std::string error;
};

// What the child does between fork and exec, all of it made before the fork: the child then
// makes async-signal-safe calls only (the verifier has CUDA threads). Made in place and never
// moved: args points into argv.
struct ChildPlan {
  int n_keep, info_target;  // the kept descriptors become 3 .. 3 + n_keep - 1; bwrap's info pipe the next
  bool confine, drop;       // drop: from root to uid
  uid_t uid;                // the box's user (box_uid()), chosen before the fork
  pid_t parent;
  std::string chdir_to;
  std::vector<std::string> argv;  // as executed: through bwrap when confining
  std::string exe;
  std::vector<char*> args, envp;
  std::vector<int> sources;  // the kept descriptors, then /dev/null, the output pipe's and the info pipe's write ends
  rlimit cpu, files, procs, fsize, core, memory;

  ChildPlan(const std::vector<std::string>& command, const BoxPolicy& p, const std::vector<int>& keep,
            std::initializer_list<int> stdio)
      : n_keep(static_cast<int>(keep.size())), info_target(3 + n_keep), confine(p.confine), drop(p.confine && ::geteuid() == 0),
        uid(drop ? box_uid() : ::getuid()), parent(::getpid()), chdir_to(p.confine ? "" : p.scratch),
        argv(p.confine ? bwrap_argv(bwrap_program(), p, info_target, command) : command),
        exe(argv[0].find('/') == std::string::npos ? find_program(argv[0]) : argv[0]), sources(keep) {
    for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
    args.push_back(nullptr);
    for (const auto& s : p.env) envp.push_back(const_cast<char*>(s.c_str()));
    envp.push_back(nullptr);
    sources.insert(sources.end(), stdio);
    // Dropped to a uid of this process's own, this one, over every task of that uid, is the
    // box's own limit with bubblewrap's processes (own_uid_task_limit), and binds bubblewrap's
    // PID 1 in the box too. Else, confined where prlimit is, the box's own limit is set in it
    // (bwrap_argv), and this one, over every task of the user, is the cap on all boxes together;
    // otherwise this one is the box's limit, though boxes of one user share it. Either way those
    // the caller's user runs already are added (dropped from root, none).
    const bool inner = confine && !prlimit_program().empty();
    const rlim_t nproc = drop && own_uid() ? own_uid_task_limit(p.limits)
                         : (inner ? all_boxes_task_cap(p.limits) : p.limits.processes) + (drop ? 0 : tasks_of_user(::getuid()));
    const rlim_t data = p.limits.memory_bytes ? p.limits.memory_bytes : default_memory_limit();
    cpu = {p.limits.cpu_s, p.limits.cpu_s};
    files = {p.limits.open_files, p.limits.open_files};
    procs = {nproc, nproc};
    rlimit own{};  // an ordinary user's limits are lowered, never raised
    if (!drop && ::getrlimit(RLIMIT_NPROC, &own) == 0) procs = {std::min(nproc, own.rlim_cur), std::min(nproc, own.rlim_max)};
    fsize = {p.limits.file_bytes, p.limits.file_bytes};
    core = {0, 0};
    memory = {data, data};
  }
  ChildPlan(const ChildPlan&) = delete;
  ChildPlan& operator=(const ChildPlan&) = delete;
};

// The child's side of launch: its own session, the descriptors in place and every other one
// closed, the limits set, root dropped to the box's uid, then exec. Async-signal-safe calls only.
[[noreturn]] void exec_child(const ChildPlan& c) {
  ::setsid();
  // Every source moved above 1000 first, so that no target overwrites a source still needed.
  int moved[64];
  const int count = std::min<int>(static_cast<int>(c.sources.size()), 64);
  for (int i = 0; i < count; ++i)
    if ((moved[i] = ::fcntl(c.sources[i], F_DUPFD, 1000 + i)) < 0) ::_exit(126);
  for (int i = 0; i < c.n_keep; ++i) ::dup2(moved[i], 3 + i);
  ::dup2(moved[c.n_keep], 0);
  ::dup2(moved[c.n_keep + 1], 1);
  ::dup2(moved[c.n_keep + 1], 2);
  if (c.confine) ::dup2(moved[c.n_keep + 2], c.info_target);
  ::close_range(static_cast<unsigned>(c.info_target + (c.confine ? 1 : 0)), ~0u, 0);
  ::setrlimit(RLIMIT_CPU, &c.cpu);
  ::setrlimit(RLIMIT_NOFILE, &c.files);
  ::setrlimit(RLIMIT_FSIZE, &c.fsize);
  ::setrlimit(RLIMIT_CORE, &c.core);
  ::setrlimit(RLIMIT_DATA, &c.memory);
  if (c.drop && (::setgroups(0, nullptr) != 0 || ::setgid(c.uid) != 0 || ::setuid(c.uid) != 0)) ::_exit(126);
  ::setrlimit(RLIMIT_NPROC, &c.procs);  // after the drop: root is not held by it
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);   // after the drop, which clears it
  if (::getppid() != c.parent) ::_exit(126);
  if (!c.chdir_to.empty() && ::chdir(c.chdir_to.c_str()) != 0) ::_exit(126);
  ::execve(c.exe.c_str(), c.args.data(), c.envp.data());
  ::_exit(127);
}

// Forks and execs argv (through bwrap when confining): its own session and process group,
// stdin from /dev/null, stdout and stderr into one pipe, the kept descriptors as 3, 4, ...,
// every other descriptor closed, the limits set, root dropped to box_uid().
Launch launch(const std::vector<std::string>& argv, const BoxPolicy& p) {
  Launch l;
  if (argv.empty()) {
    l.error = "no program";
    return l;
  }
  if (p.confine && !probing) {
    const SandboxProbe& box = probe_sandbox();
    if (!box.available) {
      l.error = "the sandbox cannot be built here: " + box.reason + " (--no-sandbox runs the submission unconfined)";
      return l;
    }
  }
  int out[2], info[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    l.error = std::string("pipe: ") + std::strerror(errno);
    return l;
  }
  if (::pipe2(info, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    l.error = std::string("pipe: ") + std::strerror(errno);
    return l;
  }
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // The watch (watch.hpp): a socket for the watcher's descriptor, after the kept ones.
  std::vector<int> keep = p.keep_fds;
  std::vector<std::string> command = argv;
  int watch[2] = {-1, -1};
  if (p.confine && !p.watcher.empty() && ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, watch) == 0) {
    command.insert(command.begin(), {p.watcher, "watch", std::to_string(3 + keep.size()), "--"});
    keep.push_back(watch[1]);
  }
  const ChildPlan plan(command, p, keep, {devnull, out[1], info[1]});
  const pid_t pid = ::fork();
  if (pid < 0) {
    l.error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {out[0], out[1], info[0], info[1], devnull, watch[0], watch[1]})
      if (fd >= 0) ::close(fd);
    return l;
  }
  if (pid == 0) exec_child(plan);
  for (int fd : {out[1], info[1], devnull, watch[1]})
    if (fd >= 0) ::close(fd);
  l.watch_fd = watch[0];
  l.pid = pid;
  l.out_fd = out[0];
  l.info_fd = info[0];
  return l;
}

// bwrap's report of the box: the PID namespace's inode and the box's first process. Not read
// through the one reader (codec/input.hpp, json_schema.hpp): no one hands it to the verifier; it
// is a few bytes from a pipe of the box's own tool, read while the box starts until what came so
// far parses as one object (bwrap writes it in pieces). Each number is taken only where it has
// its type; without them the namespace stays unknown (others_in_box counts none).
void read_info(int fd, std::uint64_t& ns, pid_t& inner) {
  std::string text;
  char buf[1024];
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10); std::chrono::steady_clock::now() < until;) {
    pollfd q{fd, POLLIN, 0};
    if (::poll(&q, 1, 100) <= 0) continue;
    const ssize_t k = ::read(fd, buf, sizeof buf);
    if (k <= 0) break;
    text.append(buf, static_cast<std::size_t>(k));
    if (text.size() > 4096) break;
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object()) {
      if (j.contains("pid-namespace") && j["pid-namespace"].is_number_unsigned()) ns = j["pid-namespace"].get<std::uint64_t>();
      if (j.contains("child-pid") && j["child-pid"].is_number_integer()) inner = j["child-pid"].get<pid_t>();
      break;
    }
  }
  ::close(fd);
}

std::uint64_t pid_namespace_of(pid_t pid) {
  struct stat st{};
  const std::string link = "/proc/" + std::to_string(pid) + "/ns/pid";
  return ::stat(link.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_ino) : 0;
}

int processes_in_namespace(std::uint64_t ns) {
  int count = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return -1;
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long v = std::strtol(e->d_name, &end, 10);
    if (*end || v <= 0) continue;
    if (pid_namespace_of(static_cast<pid_t>(v)) == ns) ++count;
  }
  ::closedir(d);
  return count;
}

// Reads what is there without blocking; false at end of file.
bool drain(int fd, std::string& kept, std::uint64_t& total, std::size_t cap,
           const std::function<void(const char*, std::size_t)>& on_output, int wait_ms) {
  pollfd q{fd, POLLIN, 0};
  if (::poll(&q, 1, wait_ms) <= 0) return true;
  char buf[65536];
  const ssize_t k = ::read(fd, buf, sizeof buf);
  if (k < 0) return errno == EINTR || errno == EAGAIN;
  if (k == 0) return false;
  total += static_cast<std::uint64_t>(k);
  if (kept.size() < cap) kept.append(buf, std::min<std::size_t>(static_cast<std::size_t>(k), cap - kept.size()));
  if (on_output) on_output(buf, static_cast<std::size_t>(k));
  return true;
}

}  // namespace

const SandboxProbe& probe_sandbox() {
  static const SandboxProbe probe = [] {
    SandboxProbe s;
    s.bwrap = bwrap_program();
    if (s.bwrap.empty()) {
      s.reason = "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)";
      return s;
    }
    probing = true;
    BoxPolicy p;
    p.env = {"PATH=/usr/bin:/bin"};
    p.limits.wall_s = 20;
    const BoxResult r = run_boxed({"/bin/true"}, p);
    probing = false;
    s.available = r.ok();
    if (!s.available) s.reason = "bwrap could not build the box (" + r.exit_text() + "): " + r.output.substr(0, 400);
    return s;
  }();
  return probe;
}

namespace {

// `folder` shown read-only again where it lies under a hidden folder (or is one), unless it
// holds another hidden folder (showing it would show that one too); never the box's own /tmp or
// what bwrap mounts itself.
void reveal_unless_holding_hidden(BoxPolicy& p, const fs::path& folder) {
  std::error_code ec;
  const std::string real = fs::weakly_canonical(folder, ec).string();
  if (ec || real == "/" || lies_within(real, "/tmp") || lies_within(real, "/dev") || lies_within(real, "/proc") ||
      lies_within(real, "/sys"))
    return;
  bool under_hidden = false;
  for (const auto& [hidden, folder] : hidden_paths(p)) {  // what the box will hide
    if (hidden != real && lies_within(hidden, real)) return;  // holds a hidden folder
    under_hidden = under_hidden || lies_within(real, hidden);
  }
  if (under_hidden) p.reveal.push_back(real);
}

}  // namespace

void reveal_program(BoxPolicy& p, const std::string& program) {
  const std::string found = find_program(program);
  if (!found.empty()) reveal_unless_holding_hidden(p, fs::path(found).parent_path().parent_path());
}

void reveal_folder(BoxPolicy& p, const std::string& folder) {
  if (!folder.empty() && folder[0] == '/') reveal_unless_holding_hidden(p, folder);
}

void reveal_library_path(BoxPolicy& p) {
  for (const std::string& dir : absolute_entries("LD_LIBRARY_PATH")) reveal_unless_holding_hidden(p, dir);
}

bool hideable(const std::string& folder) {
  if (folder == "/" || folder == "/tmp") return false;
  for (const char* own : {"/dev", "/proc", "/sys"})  // the box's own mounts (its /dev/shm among them)
    if (lies_within(folder, own)) return false;
  for (const char* system : system_folders)
    if (lies_within(system, folder)) return false;
  return !lies_within("/lib32", folder) && !lies_within("/opt", folder);
}

std::uint64_t default_memory_limit() {
#if defined(__SANITIZE_ADDRESS__)
  return RLIM_INFINITY;  // AddressSanitizer's shadow is terabytes of private mappings: its programs need no limit
#else
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0) return 16ull << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) / 4 * 3;
#endif
}

std::uint64_t tasks_of_user(uid_t uid) {
  std::uint64_t n = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    struct stat st{};
    const std::string task = std::string("/proc/") + e->d_name + "/task";
    if (::stat(task.c_str(), &st) != 0 || st.st_uid != uid) continue;
    std::error_code ec;
    for (auto it = fs::directory_iterator(task, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  }
  ::closedir(d);
  return n;
}

namespace {

// Looks up `id` in the system's user (getpwuid_r) or group (getgrgid_r) database, with a buffer
// grown until the entry fits: 1 found (in `entry`), 0 none, -1 the lookup failed (a directory
// service that did not answer, say). "None" may also come as one of the errors POSIX allows
// for it (getpwuid_r(3)).
template <class Entry, class Id, class Lookup>
int look_up(Id id, Lookup lookup, Entry& entry, std::vector<char>& buf) {
  buf.resize(1 << 14);
  for (;;) {
    Entry* found = nullptr;
    const int rc = lookup(id, &entry, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 24)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    if (found) return 1;
    return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM ? 0 : -1;
  }
}

// The system's name for `uid`, or "" where it has none.
std::string user_name(uid_t uid) {
  passwd pw{};
  std::vector<char> buf;
  return look_up(uid, ::getpwuid_r, pw, buf) == 1 && pw.pw_name ? pw.pw_name : "";
}

// Whether `id` is mapped in this process's user namespace (`map`: /proc/self/uid_map or
// gid_map, lines of "inside outside count"). "Root" in a user namespace (rootless containers)
// has only the ids its map gives it: with any other, chown fails (EINVAL) and so does the drop.
// A map that cannot be read is taken as the whole range (a kernel without user namespaces).
bool mapped(std::uint64_t id, const char* map) {
  std::ifstream in(map);
  if (!in) return true;
  for (std::uint64_t inside = 0, outside = 0, count = 0; in >> inside >> outside >> count;)
    if (id >= inside && id - inside < count) return true;
  return false;
}

// Whether `uid` may be a box's own: mapped here (as a gid too: the box takes it as both), no
// user or group of the system has it (a lookup that fails counts as taken), and no task runs as it.
bool unused_uid(uid_t uid) {
  if (!mapped(uid, "/proc/self/uid_map") || !mapped(uid, "/proc/self/gid_map")) return false;
  passwd pw{};
  group gr{};
  std::vector<char> buf;
  return look_up(uid, ::getpwuid_r, pw, buf) == 0 && look_up(static_cast<gid_t>(uid), ::getgrgid_r, gr, buf) == 0 &&
         tasks_of_user(uid) == 0;
}

}  // namespace

uid_t box_uid() {
  // Chosen once per process: the pid and the uid in one word, so that a forked child, whose pid
  // differs, chooses again (a uid is this process's alone only while the pid is).
  static std::atomic<std::uint64_t> chosen{0};
  const auto self = static_cast<std::uint64_t>(::getpid());
  std::uint64_t seen = chosen.load();
  while (seen >> 32 != self) {
    // Blocks of 2^22 (every pid fits) from 0x70000000 up to below 0x7FFE0000. Containers that
    // share the kernel's uids but not their PIDs (no user namespace of their own) number their
    // processes alike, and cannot see each other's tasks: each PID namespace starts at a block
    // of its own (by its inode), so that two verifiers of the same pid in two containers meet
    // only where the inodes agree modulo the blocks.
    constexpr std::uint64_t first = 0x70000000, block = 1u << 22, blocks = (0x7FFE0000 - first) / block;
    struct stat ns{};
    const std::uint64_t start = ::stat("/proc/self/ns/pid", &ns) == 0 ? ns.st_ino % blocks : 0;
    uid_t uid = shared_box_uid;
    for (std::uint64_t k = 0; k < blocks; ++k)
      if (const std::uint64_t candidate = first + (start + k) % blocks * block + self; unused_uid(static_cast<uid_t>(candidate))) {
        uid = static_cast<uid_t>(candidate);
        break;
      }
    // Two threads that choose at once agree on the first one stored.
    if (chosen.compare_exchange_strong(seen, self << 32 | uid)) return uid;
  }
  return static_cast<uid_t>(seen & 0xFFFFFFFFu);
}

bool own_uid() { return ::geteuid() == 0 && box_uid() != shared_box_uid; }

const std::string& prlimit_program() {
  static const std::string path = [] {
    for (const char* p : {"/usr/bin/prlimit", "/bin/prlimit"})
      if (::access(p, X_OK) == 0) return std::string(p);
    return std::string();
  }();
  return path;
}

namespace {

// The uid the box runs as, in words.
std::string uid_words() {
  const uid_t uid = box_uid();
  if (uid == shared_box_uid)
    return fmt::format(", uid {} (dropped from root; no uid of this verifier process's own was free: shared with other verifiers' boxes)", uid);
  return fmt::format(", uid {} (dropped from root; this verifier process's own: no other verifier's box of its PID namespace runs as it)", uid);
}

// The process limit as the box gets it: its own where prlimit sets it inside, else the user's;
// dropped to a uid of this process's own, the limit outside is the box's own too.
std::string processes_words(const Limits& l) {
  if (own_uid() && prlimit_program().empty())
    return fmt::format("{} processes (the box's own: its uid's at most {}, bubblewrap's among them), ", l.processes, own_uid_task_limit(l));
  if (own_uid())
    return fmt::format("{} processes (the box's own, counted in its user namespace; outside it, its uid's at most {}, "
                       "bubblewrap's own PID 1 in the box among them), ",
                       l.processes, own_uid_task_limit(l));
  if (prlimit_program().empty()) return fmt::format("{} processes (of the user's, with every other box's), ", l.processes);
  return fmt::format("{} processes (the box's own, counted in its user namespace; all boxes of the user together at most {}{}), ",
                     box_task_limit(l), all_boxes_task_cap(l), ::geteuid() == 0 ? "" : " beyond the user's others");
}

std::string memory_words(std::uint64_t bytes) {
  return bytes == RLIM_INFINITY ? "no heap limit (a sanitized build), " : std::to_string(bytes >> 20) + " MiB of heap, ";
}
}  // namespace

std::string describe(const BoxPolicy& p) {
  if (!p.confine)
    return "NOT CONFINED (--no-sandbox): the submission ran with the caller's rights, its file system and network; "
           "only the limits and the descriptor list applied";
  std::string s = "bubblewrap: new user, PID, network, IPC, UTS and cgroup namespaces (no network), read-only root, "
                  "private /tmp and one writable scratch folder, no capabilities";
  if (::geteuid() == 0) s += uid_words();
  s += p.gpu ? ", in /dev bubblewrap's minimal set and the GPU device nodes" : ", in /dev bubblewrap's minimal set (no GPU device node)";
  if (const std::size_t n = hidden_paths(p).size(); n > 0)
    s += ", " + std::to_string(n) + " folder(s) hidden (of the report folder, home, golden data, working folder, "
         "the submission's own and --hide; one inside another hidden with it)";
  s += "; limits: " + (p.limits.wall_s > 0 ? std::to_string(static_cast<long>(p.limits.wall_s)) + " s wall, " : std::string()) +
       std::to_string(p.limits.cpu_s) + " s CPU, " + std::to_string(p.limits.open_files) + " open files, " +
       processes_words(p.limits) + memory_words(p.limits.memory_bytes ? p.limits.memory_bytes : default_memory_limit()) +
       std::to_string(p.limits.file_bytes >> 20) + " MiB a file, " +
       std::to_string(std::min<std::uint64_t>(p.limits.tmp_bytes, default_memory_limit() / 6) >> 20) +
       " MiB of /tmp and as much of /dev/shm (/dev read-only); every process it starts ends with it";
  return s;
}

namespace {

// The scratch folders alive in this process (remove_scratch_folders_now).
std::mutex live_scratch_mutex;
std::set<std::string> live_scratch;

}  // namespace

void remove_scratch_folders_now() {
  std::lock_guard lk(live_scratch_mutex);
  for (const std::string& path : live_scratch) remove_tree(path);
  live_scratch.clear();
}

std::string scratch_base() {
  std::error_code ec;
  std::string base = fs::temp_directory_path(ec).string();
  return ec || base.empty() || base[0] != '/' ? "/tmp" : base;
}

Scratch::Scratch(Use use) {
  const std::string base = scratch_base();
  if (use == Use::box) require_box_can_search(base);
  std::string tmpl = base + "/tmp.XXXXXXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a scratch folder under " + base + ": " + std::strerror(errno));
  path_ = tmpl;
  {
    std::lock_guard lk(live_scratch_mutex);
    live_scratch.insert(path_);
  }
  if (use == Use::for_run) {
    if (::chmod(path_.c_str(), 0711) != 0) throw std::runtime_error("cannot open the run's folder " + path_ + " to the box: " + std::strerror(errno));
    return;
  }
  if (::geteuid() == 0 && ::chown(path_.c_str(), box_uid(), box_uid()) != 0)
    throw std::runtime_error("cannot give the scratch folder " + path_ + " to the box's user: " + std::strerror(errno));
}

void require_box_can_search(const std::string& folder) {
  if (::geteuid() != 0) return;
  if (const fs::path closed = unsearchable_above(folder + "/x"); !closed.empty())
    throw std::runtime_error(fmt::format("the temporary folder {} (TMPDIR): the box's unprivileged user cannot search {}, so no "
                                         "submission could reach its scratch folder there; let others search it (chmod o+x) "
                                         "or set TMPDIR to a folder they can",
                                         plain_line(folder), plain_line(closed.string())));
}

void require_sandbox(const std::string& way_round) {
  if (const SandboxProbe& box = probe_sandbox(); !box.available)
    throw std::runtime_error("the sandbox cannot be built here: " + box.reason + "; " + way_round);
}

void require_hideable_home(const std::string& home) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(fs::absolute(home, ec), ec);
  if (home.empty() || ec || real == "/") return;  // none, or the root, which the box never hides
  for (const char* system : system_folders)
    if (lies_within(system, real))
      throw std::runtime_error(fmt::format("HOME ({}): the box hides the caller's home folder, and this one holds the system's "
                                           "programs and libraries ({}), without which nothing runs in the box; set HOME to a "
                                           "folder of your own",
                                           plain_line(home), system));
}

void give_to_box(const std::string& path) {
  if (::geteuid() != 0) return;
  std::error_code ec;
  const uid_t uid = box_uid();
  (void)!::lchown(path.c_str(), uid, uid);
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    (void)!::lchown(it->path().c_str(), uid, uid);
}

namespace {

// The names in the open folder `dir` (its own descriptor is left open and where it was).
std::vector<std::string> names_in(int dir) {
  std::vector<std::string> names;
  const int copy = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (!d) {
    if (copy >= 0) ::close(copy);
    return names;
  }
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

// The folder `name` in `top`, opened, made enterable if it was not (its owner may: the box's
// user is this process's, or this process is root).
int open_folder(int top, const std::string& name) {
  int fd = ::openat(top, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES && ::fchmodat(top, name.c_str(), 0700, 0) == 0)
    fd = ::openat(top, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) (void)!::fchmod(fd, 0700);
  return fd;
}

}  // namespace

bool remove_tree(const std::string& path) {
  const int top = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (top < 0) return errno == ENOENT || ((errno == ENOTDIR || errno == ELOOP) && ::unlink(path.c_str()) == 0);
  (void)!::fchmod(top, 0700);
  std::uint64_t serial = 0;
  // Twice over what is there, in case a name could not be handled the first time round.
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::string> pending = names_in(top);
    while (!pending.empty()) {
      const std::string name = std::move(pending.back());
      pending.pop_back();
      struct stat st{};
      if (::fstatat(top, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (!S_ISDIR(st.st_mode)) {
        ::unlinkat(top, name.c_str(), 0);
        continue;
      }
      if (::unlinkat(top, name.c_str(), AT_REMOVEDIR) == 0) continue;  // empty already
      const int dir = open_folder(top, name);
      if (dir < 0) continue;
      for (const std::string& inner : names_in(dir)) {
        if (::fstatat(dir, inner.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISDIR(st.st_mode)) {
          ::unlinkat(dir, inner.c_str(), 0);
          continue;
        }
        // Up into the top folder under a name of its own: no chain grows deeper than one.
        for (int tries = 0; tries < 1000; ++tries) {
          const std::string moved = ".removed." + std::to_string(serial++);
          if (::renameat2(dir, inner.c_str(), top, moved.c_str(), RENAME_NOREPLACE) == 0) {
            pending.push_back(moved);
            break;
          }
          if (errno != EEXIST) break;
        }
      }
      ::close(dir);
      ::unlinkat(top, name.c_str(), AT_REMOVEDIR);
    }
  }
  ::close(top);
  return ::rmdir(path.c_str()) == 0;
}

Scratch::~Scratch() {
  {
    std::lock_guard lk(live_scratch_mutex);
    if (!live_scratch.erase(path_)) return;  // removed already, by remove_scratch_folders_now
  }
  if (!remove_tree(path_))
    std::fprintf(stderr, "rope2d: could not remove the scratch folder %s: %s\n", path_.c_str(), std::strerror(errno));
}

std::string BoxResult::exit_text() const {
  if (!started) return "not started: " + start_error;
  if (timed_out) return "killed at its time limit";
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

std::string BoxResult::text() const { return plain_text(output); }

bool BoxResult::ok() const { return started && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

BoxResult run_boxed(const std::vector<std::string>& argv, const BoxPolicy& p,
                    const std::function<void(const char*, std::size_t)>& on_output) {
  BoxResult r;
  const Launch l = launch(argv, p);
  if (l.pid < 0) {
    r.start_error = l.error;
    return r;
  }
  r.started = true;  // l.info_fd stays open to the end: bwrap writes to it (a closed pipe would kill it)
  std::unique_ptr<Watch> watch = l.watch_fd >= 0 ? std::make_unique<Watch>(l.watch_fd, writable(p)) : nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  bool open = true, exited = false;
  double exited_at = 0;
  for (;;) {
    if (open) open = drain(l.out_fd, r.output, r.output_bytes, p.output_cap, on_output, 100);
    else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!exited) {  // seen ended but not reaped (WNOWAIT): its process group id stays its own
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(l.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == l.pid)
        exited = true, exited_at = elapsed();
    }
    if (exited && (!open || elapsed() > exited_at + 1)) break;  // what it left holding the pipe is killed below
    if (!exited && p.limits.wall_s > 0 && elapsed() > p.limits.wall_s) {
      r.timed_out = true;
      ::kill(-l.pid, SIGKILL);
      exited = true, exited_at = elapsed();
    }
  }
  ::kill(-l.pid, SIGKILL);  // unconfined leftovers in its group (a box ends with its first process)
  ::waitpid(l.pid, &r.status, 0);
  if (watch) r.refused = watch->finish();
  ::close(l.out_fd);
  ::close(l.info_fd);
  return r;
}

BoxedProcess::BoxedProcess(const std::vector<std::string>& argv, const BoxPolicy& p) : cap_(p.output_cap) {
  const Launch l = launch(argv, p);
  start_error_ = l.error;
  if (l.pid < 0) return;
  pid_ = l.pid;
  out_fd_ = l.out_fd;
  if (l.watch_fd >= 0) watch_ = std::make_unique<Watch>(l.watch_fd, writable(p));
  if (p.confine) read_info(l.info_fd, ns_inode_, inner_);
  else ::close(l.info_fd);
  drainer_ = std::thread([this] {
    char buf[65536];
    for (;;) {
      pollfd q{out_fd_, POLLIN, 0};
      if (::poll(&q, 1, 100) == 0) {
        if (stop_) return;  // finished, and an unconfined leftover still holds the pipe
        continue;
      }
      const ssize_t k = ::read(out_fd_, buf, sizeof buf);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return;
      std::lock_guard lk(output_mutex_);
      output_bytes_ += static_cast<std::uint64_t>(k);
      if (output_.size() < cap_) output_.append(buf, std::min<std::size_t>(static_cast<std::size_t>(k), cap_ - output_.size()));
    }
  });
}

BoxedProcess::~BoxedProcess() {
  if (pid_ > 0) finish(0);
}

int BoxedProcess::others_in_box() const {
  if (!ns_inode_) return 0;
  const int n = processes_in_namespace(ns_inode_);
  return std::max(0, n - 2);  // bwrap's init and the first command
}

BoxResult BoxedProcess::finish(double grace_s) {
  BoxResult r;
  r.started = pid_ > 0;
  r.start_error = start_error_;
  if (pid_ <= 0) return r;
  const auto t0 = std::chrono::steady_clock::now();
  bool exited = false;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < grace_s) {
    siginfo_t info{};  // ended but not reaped (WNOWAIT): the group id below is still its own
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid_, SIGKILL);
  ::waitpid(pid_, &r.status, 0);
  if (watch_) r.refused = watch_->finish();
  r.timed_out = !exited && grace_s > 0;
  // The box is gone, and with it every writer of the pipe: the drain ends at end of file (or,
  // unconfined, at the first quiet moment, whatever a leftover of the child still holds).
  stop_ = true;
  if (drainer_.joinable()) drainer_.join();
  {
    std::lock_guard lk(output_mutex_);
    r.output = output_;
    r.output_bytes = output_bytes_;
  }
  ::close(out_fd_);
  out_fd_ = -1;
  pid_ = -1;
  return r;
}

std::vector<std::string> box_environment(const std::string& scratch) {
  // The caller's PATH (its absolute entries) so that the same python3 and nvcc run inside; the
  // usual folders after it.
  std::vector<std::string> path = absolute_entries("PATH");
  path.insert(path.end(), {"/usr/local/cuda/bin", "/usr/local/bin", "/usr/bin", "/bin"});
  // No Python bytecode written: the box's root is read-only, and every module a Python host
  // imports (torch's thousands) would otherwise be a refused write in the report's count,
  // hiding the submission's own. A setting many users' images have too.
  std::vector<std::string> env{fmt::format("PATH={}", fmt::join(path, ":")), "LANG=C.UTF-8", "HOME=" + scratch, "TMPDIR=/tmp", "PYTHONDONTWRITEBYTECODE=1"};
  // The user's name, as a login gives it: the system's name for the box's uid (the caller's own,
  // or nobody), and "nobody" for a uid of the box's own, which has none. Python's
  // getpass.getuser() reads these before the user database and raises where both fail (torch
  // inductor names its cache folder by it, /tmp/torchinductor_<user>, in the box's own /tmp).
  const std::string user = user_name(::geteuid() == 0 ? box_uid() : ::getuid());
  env.push_back("USER=" + (user.empty() ? std::string("nobody") : user));
  env.push_back("LOGNAME=" + (user.empty() ? std::string("nobody") : user));
  // The device selection and library path, and the sanitizer runtimes' settings of a sanitized
  // build of the verifier (whose kernel host is sanitized too): nothing of the verifier's own.
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"})
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  if (const std::vector<std::string> libs = absolute_entries("LD_LIBRARY_PATH"); !libs.empty())
    env.push_back(fmt::format("LD_LIBRARY_PATH={}", fmt::join(libs, ":")));
  return env;
}

}  // namespace rope2d::verify::harness
