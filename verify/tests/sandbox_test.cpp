// The box (harness/sandbox.hpp) on this machine: what a boxed child can and cannot do. Each
// test runs a shell inside the box and looks from outside; SKIPPED where the box cannot be
// built (no bubblewrap).
#include "harness/sandbox.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;
using namespace rope2d::verify::harness;

namespace {

BoxPolicy policy(const Scratch& s) {
  BoxPolicy p;
  p.scratch = s.path();
  p.env = box_environment(s.path());
  p.limits.wall_s = 60;
  return p;
}

#define NEED_BOX()                                                                   \
  if (!probe_sandbox().available) GTEST_SKIP() << "no box here: " << probe_sandbox().reason

// A folder made from a mkdtemp template (outside /tmp: the box's /tmp is its own), removed
// with everything in it at the end of the test.
struct TempFolder {
  std::string path;
  explicit TempFolder(std::string name_template) : path(std::move(name_template)) {
    if (!::mkdtemp(path.data())) throw std::runtime_error("mkdtemp " + path + ": " + std::strerror(errno));
  }
  ~TempFolder() { fs::remove_all(path); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
};

BoxResult sh(const BoxPolicy& p, const std::string& script) { return run_boxed({"/bin/sh", "-c", script}, p); }

// The number a boxed program printed after its last `word ` ("opened 61"), or -1 if none.
int count_after(const std::string& output, const std::string& word) {
  const auto at = output.rfind(word + " ");
  return at == std::string::npos ? -1 : std::atoi(output.c_str() + at + word.size() + 1);
}

// A box's program that starts processes until it is refused and holds them: it prints "holding
// N" and makes the file `holding` in its folder, then waits up to 60 s for a file `done` there.
const std::string fork_until_refused =
    "python3 -c 'import os, time\nn = 0\nwhile n < 1000:\n    try:\n        pid = os.fork()\n    except OSError:\n"
    "        break\n    if pid == 0:\n        time.sleep(60)\n        os._exit(0)\n    n += 1\nprint(\"holding\", n, flush=True)\n"
    "open(\"holding\", \"w\").close()\nt = time.time()\nwhile not os.path.exists(\"done\") and time.time() < t + 60:\n"
    "    time.sleep(0.1)\n'";

// One that starts 20 processes, each ending at once, and prints "started N", those it started.
const std::string start_20 =
    "python3 -c 'import os\nkids = []\nfor _ in range(20):\n    try:\n        pid = os.fork()\n    except OSError:\n"
    "        break\n    if pid == 0:\n        os._exit(0)\n    kids.append(pid)\nfor k in kids:\n    os.waitpid(k, 0)\n"
    "print(\"started\", len(kids))\n'";

// Another verifying process beside this one: a child forked when made (before the test starts a
// thread of its own) that, when run() says so, runs `script` in a box of its own, with
// `processes` its limit, and hands back the uid its boxes run as and what the box printed.
class OtherVerifier {
 public:
  OtherVerifier(const std::string& script, std::uint64_t processes) {
    if (::pipe(go_) != 0 || ::pipe(back_) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      ::close(go_[1]);
      ::close(back_[0]);
      char c = 0;
      // Whatever happens here ends here: an exception let through would run the rest of the
      // test program in this child.
      try {
        if (::read(go_[0], &c, 1) == 1) {
          std::string said;
          {
            const Scratch s;
            BoxPolicy p = policy(s);
            p.limits.processes = processes;
            const BoxResult r = sh(p, script);
            said = std::to_string(box_uid()) + "\n" + r.exit_text() + "\n" + r.output;
          }
          (void)!::write(back_[1], said.data(), said.size());
        }
      } catch (const std::exception& e) {
        const std::string said = "0\nthe other verifier failed: " + std::string(e.what()) + "\n";
        (void)!::write(back_[1], said.data(), said.size());
      } catch (...) {
      }
      ::_exit(0);
    }
    ::close(go_[0]);
    ::close(back_[1]);
  }
  ~OtherVerifier() {
    ::close(go_[1]);  // a child never told to run ends
    ::close(back_[0]);
    ::waitpid(pid_, nullptr, 0);
  }
  OtherVerifier(const OtherVerifier&) = delete;
  OtherVerifier& operator=(const OtherVerifier&) = delete;

  // Its box's uid, and the box's end and output on the lines after it.
  std::pair<uid_t, std::string> run() {
    (void)!::write(go_[1], "g", 1);
    std::string said;
    char buf[4096];
    for (ssize_t k; (k = ::read(back_[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(k));
    const std::size_t line = said.find('\n');
    if (line == std::string::npos) return {0, "the other verifier said nothing"};
    return {static_cast<uid_t>(std::stoul(said.substr(0, line))), said.substr(line + 1)};
  }

 private:
  int go_[2] = {-1, -1}, back_[2] = {-1, -1};
  pid_t pid_ = -1;
};

#if defined(__x86_64__)
// The child of `parent` (a box's bwrap outside: its child is the box's PID 1), or -1.
pid_t child_of(pid_t parent) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;  // not a process
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    const std::size_t end = stat.rfind(')');  // after the command's name, which may hold anything
    if (end == std::string::npos) continue;
    std::istringstream rest(stat.substr(end + 1));
    char state = 0;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

// What a submission that traces its box's PID 1 can make it do, done from outside (root may
// trace it; the kernel counts the processes PID 1 starts the same whoever asked): `pid` made to
// call fork() until it is refused, or `most` times, each child held stopped, traced from its
// start (PTRACE_O_TRACEFORK), as long as this thread lives (a tracer's end lets its tracees go).
// The children started, -2 where tracing was refused (no CAP_SYS_PTRACE in a container, Yama's
// ptrace_scope 3), or -1 where `pid` could not be made to fork. x86-64: PID 1 waits in a
// system call (bwrap's init in wait()), so the two bytes before its instruction pointer are a
// `syscall`, run again with fork's number.
int fork_through(pid_t pid, int most) {
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, PTRACE_O_TRACEFORK) != 0) return errno == EPERM ? -2 : -1;
  if (::ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr) != 0) return -1;
  int st = 0;
  if (::waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st)) return -1;
  user_regs_struct saved{};
  if (::ptrace(PTRACE_GETREGS, pid, nullptr, &saved) != 0) return -1;
  const unsigned long long at = saved.rip - 2;
  errno = 0;
  const long word = ::ptrace(PTRACE_PEEKTEXT, pid, reinterpret_cast<void*>(at), nullptr);
  if (errno != 0 || (word & 0xFFFF) != 0x050F) return -1;
  int started = 0;
  for (; started < most; ++started) {
    user_regs_struct r = saved;
    r.rip = at, r.rax = SYS_fork, r.orig_rax = ~0ull;  // no system call to restart: fork, from `at`
    ::ptrace(PTRACE_SETREGS, pid, nullptr, &r);
    ::ptrace(PTRACE_SINGLESTEP, pid, nullptr, nullptr);
    for (;;) {  // past the fork event's stop (and any signal, suppressed) to the step's trap after it
      if (::waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st)) return -1;
      if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0) break;
      ::ptrace(PTRACE_SINGLESTEP, pid, nullptr, nullptr);
    }
    ::ptrace(PTRACE_GETREGS, pid, nullptr, &r);
    if (static_cast<long long>(r.rax) < 0) break;  // refused: EAGAIN, the process limit
  }
  ::ptrace(PTRACE_SETREGS, pid, nullptr, &saved);  // back to its wait(), restarted
  ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  return started;
}
#endif

// A process whose command line holds `token`, anywhere on the machine.
bool running(const std::string& token) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), {});
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(token) != std::string::npos && cmd.find("sandbox_test") == std::string::npos) return true;
  }
  return false;
}

}  // namespace

// The box's search paths keep only the caller's absolute entries: an empty or relative one
// names the box's working folder, where the submission writes (a library planted there would
// be loaded by the build's programs).
TEST(Sandbox, SearchPathsKeepOnlyAbsoluteEntries) {
  const char* old_path = std::getenv("PATH");
  const char* old_libs = std::getenv("LD_LIBRARY_PATH");
  const std::string saved_path = old_path ? old_path : "", saved_libs = old_libs ? old_libs : "";
  ::setenv("PATH", ":bin:/opt/x/bin", 1);
  ::setenv("LD_LIBRARY_PATH", ":/usr/local/cuda/lib64:lib::.", 1);
  const std::vector<std::string> env = box_environment("/tmp/scratch");
  ::setenv("PATH", saved_path.c_str(), 1);
  if (old_libs) ::setenv("LD_LIBRARY_PATH", saved_libs.c_str(), 1);
  else ::unsetenv("LD_LIBRARY_PATH");
  EXPECT_NE(std::find(env.begin(), env.end(), "LD_LIBRARY_PATH=/usr/local/cuda/lib64"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "PATH=/opt/x/bin:/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"), env.end());
  ::setenv("LD_LIBRARY_PATH", "::lib", 1);  // nothing absolute: no variable at all
  const std::vector<std::string> none = box_environment("/tmp/scratch");
  if (old_libs) ::setenv("LD_LIBRARY_PATH", saved_libs.c_str(), 1);
  else ::unsetenv("LD_LIBRARY_PATH");
  EXPECT_TRUE(std::none_of(none.begin(), none.end(), [](const std::string& v) { return v.rfind("LD_LIBRARY_PATH=", 0) == 0; }));
}

TEST(Sandbox, WritesOnlyItsScratchFolder) {
  NEED_BOX();
  Scratch s;
  const std::string outside = "/var/tmp/rope2d-sandbox-test-" + std::to_string(::getpid());
  const BoxResult r = sh(policy(s), "echo x > " + outside + "; echo y > inside; echo z > /tmp/private; true");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  EXPECT_FALSE(fs::exists(outside)) << "the box wrote outside its scratch folder";
  EXPECT_TRUE(fs::exists(fs::path(s.path()) / "inside"));
  EXPECT_FALSE(fs::exists("/tmp/private"));  // its /tmp is its own
  EXPECT_NE(r.output.find("Read-only file system"), std::string::npos) << r.output;
}

TEST(Sandbox, HiddenFoldersLookEmpty) {
  NEED_BOX();
  Scratch s;
  // Outside /tmp (the box's /tmp is its own), readable by everyone: only hiding keeps it out.
  const TempFolder made("/var/tmp/rope2d-hidden-XXXXXX");
  const std::string& dir = made.path;
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  std::ofstream(fs::path(dir) / "key") << "the secret";
  fs::permissions(fs::path(dir) / "key", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
  BoxPolicy p = policy(s);
  p.hide = {dir};
  const BoxResult r = sh(p, "cat " + dir + "/key || echo HIDDEN; echo x > " + dir + "/w || echo READONLY");
  ASSERT_TRUE(r.ok()) << r.exit_text();
  EXPECT_EQ(r.output.find("the secret"), std::string::npos);
  EXPECT_NE(r.output.find("HIDDEN"), std::string::npos);
  EXPECT_NE(r.output.find("READONLY"), std::string::npos) << "a hidden folder is writable memory: " << r.output;
  p.hide.clear();  // negative control: not hidden, it is read
  EXPECT_NE(sh(p, "cat " + dir + "/key").output.find("the secret"), std::string::npos);
}

TEST(Sandbox, InheritsOnlyTheDescriptorsNamed) {
  NEED_BOX();
  Scratch s;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);  // no close-on-exec: a careless fork would pass both on
  BoxPolicy p = policy(s);
  p.keep_fds = {fds[1]};
  const BoxResult r = sh(p, "ls /proc/self/fd | tr '\\n' ' '; echo kept >&3");
  ::close(fds[1]);
  char buf[16] = {0};
  ASSERT_GT(::read(fds[0], buf, sizeof buf - 1), 0);
  ::close(fds[0]);
  EXPECT_STREQ(buf, "kept\n");
  // 0, 1, 2, the kept one as 3, and the descriptor ls itself opens on /proc/self/fd.
  EXPECT_EQ(r.output.rfind("0 1 2 3 4 ", 0), 0u) << r.output;
  EXPECT_EQ(r.output.find(" 5"), std::string::npos) << r.output;
}

TEST(Sandbox, WallClockLimitKillsTheBox) {
  NEED_BOX();
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.wall_s = 1;
  const auto t0 = std::chrono::steady_clock::now();
  const BoxResult r = sh(p, "sleep 30");
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
}

TEST(Sandbox, NothingOutlivesTheBox) {
  NEED_BOX();
  Scratch s;
  const BoxResult r = sh(policy(s), "(setsid sleep 31.25 &); (sleep 31.5 &); exit 0");
  ASSERT_TRUE(r.ok()) << r.exit_text();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(running("sleep 31.25"));
  EXPECT_FALSE(running("sleep 31.5"));
  // Negative control: unconfined, a detached process does outlive its parent's run.
  BoxPolicy p = policy(s);
  p.confine = false;
  ASSERT_TRUE(sh(p, "(setsid sleep 31.75 > /dev/null 2>&1 &); sleep 0.5; exit 0").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(running("sleep 31.75"));
  std::system("pkill -f 'sleep 31.75'");
}

TEST(Sandbox, OutputIsCappedNotBlocked) {
  NEED_BOX();
  Scratch s;
  BoxPolicy p = policy(s);
  p.output_cap = 4096;
  const BoxResult r = sh(p, "head -c 5000000 /dev/zero; head -c 5000000 /dev/zero >&2");
  ASSERT_TRUE(r.ok()) << r.exit_text();
  EXPECT_EQ(r.output.size(), 4096u);
  EXPECT_EQ(r.output_bytes, 10000000u);
}

// The box's /tmp is memory of a bounded size: 8 MiB asked for, 32 MiB written is refused.
TEST(Sandbox, PrivateTmpIsBounded) {
  NEED_BOX();
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.tmp_bytes = 8ull << 20;
  const BoxResult r = sh(p, "head -c 33554432 /dev/zero > /tmp/fill || echo FULL; wc -c < /tmp/fill");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  EXPECT_NE(r.output.find("FULL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("8388608"), std::string::npos) << r.output;
}

// bwrap's /dev is memory without a size of its own: read-only in the box (its nodes still
// work), and /dev/shm bounded as /tmp is.
TEST(Sandbox, DevHoldsNoMoreMemoryThanTmp) {
  NEED_BOX();
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.tmp_bytes = 8ull << 20;
  const BoxResult r = sh(p, "echo x > /dev/fill || echo READONLY; head -c 33554432 /dev/zero > /dev/shm/fill || echo FULL; "
                            "wc -c < /dev/shm/fill; echo y > /dev/null && echo NULL");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  EXPECT_NE(r.output.find("READONLY"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FULL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("8388608"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("NULL"), std::string::npos) << r.output;
}

// A folder to hide inside another one to hide (a report folder under the home, as an ordinary
// user) is hidden with it: the box starts, and neither is seen.
TEST(Sandbox, HidesFoldersInsideHiddenFolders) {
  NEED_BOX();
  Scratch s;
  const TempFolder made("/var/tmp/rope2d-nested-XXXXXX");
  const std::string& dir = made.path;
  fs::permissions(dir, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::create_directories(fs::path(dir) / "reports" / "out");
  fs::permissions(fs::path(dir) / "reports", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(fs::path(dir) / "reports" / "out", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  std::ofstream(fs::path(dir) / "reports" / "out" / "report.md") << "the report";
  fs::permissions(fs::path(dir) / "reports" / "out" / "report.md", fs::perms::owner_all | fs::perms::others_read);
  BoxPolicy p = policy(s);
  // The inner one first and a folder beside them last: the outer one and the one beside are
  // hidden, whatever the order.
  fs::create_directories(fs::path(dir) / "beside");
  p.hide = {dir + "/reports/out", dir, dir + "/", "/run", "/var/tmp/rope2d-no-such-folder"};
  EXPECT_NE(describe(p).find(", 2 folder(s) hidden"), std::string::npos) << describe(p);
  const BoxResult r = sh(p, "ls " + dir + "; cat " + dir + "/reports/out/report.md || echo HIDDEN");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  EXPECT_NE(r.output.find("HIDDEN"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("the report"), std::string::npos) << r.output;
}

// A folder the box needs is never hidden (the root, its own /tmp, one holding the system's
// programs and libraries), whatever asked for it (a submission in /usr/src, run from /): the
// box still starts and runs, and the report's count names only what was hidden. A library
// path's folder under a hidden folder is shown again, the rest of that folder not.
TEST(Sandbox, WhatTheBoxNeedsIsNeverHidden) {
  EXPECT_FALSE(hideable("/"));
  EXPECT_FALSE(hideable("/tmp"));
  EXPECT_FALSE(hideable("/usr"));
  EXPECT_FALSE(hideable("/etc"));
  EXPECT_TRUE(hideable("/usr/src"));
  EXPECT_TRUE(hideable("/var/tmp"));
  EXPECT_TRUE(hideable("/tmpx"));
  EXPECT_FALSE(hideable("/dev/shm"));  // the box's own
  EXPECT_FALSE(hideable("/proc/1"));
  NEED_BOX();
  Scratch s;
  const TempFolder made("/var/tmp/rope2d-reveal-XXXXXX");
  const std::string& dir = made.path;
  const auto open_to_all = [](const fs::path& f) { fs::permissions(f, fs::perms::all & ~fs::perms::group_write & ~fs::perms::others_write); };
  open_to_all(dir);
  fs::create_directories(fs::path(dir) / "lib");
  open_to_all(fs::path(dir) / "lib");
  std::ofstream(fs::path(dir) / "lib" / "libx.txt") << "the library";
  std::ofstream(fs::path(dir) / "token") << "the token";
  open_to_all(fs::path(dir) / "lib" / "libx.txt");
  open_to_all(fs::path(dir) / "token");
  BoxPolicy p = policy(s);
  p.hide = {"/", "/tmp", "/usr", dir};
  EXPECT_NE(describe(p).find(", 1 folder(s) hidden"), std::string::npos) << describe(p);
  const char* was = std::getenv("LD_LIBRARY_PATH");
  const std::string kept = was ? was : "";
  // The library folder under the hidden one is shown again; /tmp (the box's own) and a folder
  // under nothing hidden are not bound over the box.
  ::setenv("LD_LIBRARY_PATH", ("/tmp:/usr/lib:" + dir + "/lib").c_str(), 1);
  reveal_library_path(p);
  EXPECT_EQ(p.reveal, std::vector<std::string>{dir + "/lib"});
  if (was) ::setenv("LD_LIBRARY_PATH", kept.c_str(), 1);
  else ::unsetenv("LD_LIBRARY_PATH");
  const BoxResult r = sh(p, "cat " + dir + "/lib/libx.txt; cat " + dir + "/token || echo HIDDEN; ls /usr/bin | head -c 0; echo RAN");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  EXPECT_NE(r.output.find("the library"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("HIDDEN"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("the token"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("RAN"), std::string::npos) << r.output;
}

// What a box leaves in its scratch folder is removed with it, whatever it is: a chain of
// folders deeper than a path or the table of open descriptors can hold, a folder made
// unenterable, a link out (removed, never followed).
TEST(Sandbox, ScratchGoesWhateverTheBoxLeftInIt) {
  std::string path;
  const std::string victim = "/var/tmp/rope2d-scratch-victim-" + std::to_string(::getpid());
  std::ofstream(victim) << "keep me";
  {
    Scratch s;
    path = s.path();
    // 300 folders of 100-character names: 30 kB, beyond any path the kernel takes.
    const std::string d(100, 'd');
    int dir = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
    for (int i = 0; i < 300 && dir >= 0; ++i) {
      ASSERT_EQ(::mkdirat(dir, d.c_str(), 0755), 0);
      const int next = ::openat(dir, d.c_str(), O_RDONLY | O_DIRECTORY);
      ::close(dir);
      dir = next;
    }
    ASSERT_GE(dir, 0);
    ::close(::openat(dir, "file", O_WRONLY | O_CREAT, 0644));
    ::close(dir);
    fs::create_directories(fs::path(path) / "locked" / "inner");
    std::ofstream(fs::path(path) / "locked" / "inner" / "f") << "x";
    fs::permissions(fs::path(path) / "locked" / "inner", fs::perms::none);
    fs::permissions(fs::path(path) / "locked", fs::perms::none);
    fs::create_symlink(victim, fs::path(path) / "link");
    fs::create_directory_symlink("/var/tmp", fs::path(path) / "dirlink");
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(path))) << path << " stayed";
  std::ifstream in(victim);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}), "keep me");
  EXPECT_TRUE(fs::exists("/var/tmp"));
  fs::remove(victim);
}

TEST(Sandbox, NoNetworkAndNoPrivilege) {
  NEED_BOX();
  Scratch s;
  const BoxResult r = sh(policy(s), "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '; echo; id -u");
  ASSERT_TRUE(r.ok()) << r.exit_text();
  // Only the box's own loopback exists in its network namespace.
  EXPECT_EQ(r.output.rfind("lo \n", 0), 0u) << r.output;
  if (::geteuid() == 0) {
    EXPECT_NE(r.output.find("\n" + std::to_string(box_uid())), std::string::npos) << r.output;
  }
}

// Started as root, each verifying process's boxes run as a uid of its own: not the shared
// nobody, and not the uid of a second verifier's box running beside it. The report's line names
// the uid and says the process limit is the box's own.
TEST(Sandbox, EachVerifiersBoxesRunAsAUidOfItsOwn) {
  NEED_BOX();
  if (::geteuid() != 0) GTEST_SKIP() << "as root only: an ordinary user's box runs as that user";
  OtherVerifier other("id -u", 60);
  Scratch s;
  BoxPolicy p = policy(s);
  BoxedProcess mine({"/bin/sh", "-c", "id -u; while [ ! -e done ]; do sleep 0.05; done"}, p);
  ASSERT_TRUE(mine.started()) << mine.start_error();
  const auto [other_uid, other_said] = other.run();  // while this process's box runs
  std::ofstream(fs::path(s.path()) / "done").put('\n');
  const BoxResult r = mine.finish(10);
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  const uid_t uid = static_cast<uid_t>(std::stoul(r.output));
  EXPECT_EQ(uid, box_uid());
  EXPECT_NE(uid, shared_box_uid) << "the box ran as the uid every verifier's boxes share";
  EXPECT_NE(other_said.find("\n" + std::to_string(other_uid) + "\n"), std::string::npos) << other_said;  // "exit 0", then its id -u
  EXPECT_NE(other_uid, shared_box_uid) << other_said;
  EXPECT_NE(other_uid, uid) << "two verifiers' boxes ran as one uid";
  const std::string line = describe(p);
  EXPECT_NE(line.find("uid " + std::to_string(uid) + " (dropped from root; this verifier process's own"), std::string::npos) << line;
  EXPECT_NE(line.find("processes (the box's own"), std::string::npos) << line;
  EXPECT_EQ(line.find("all boxes of the user together"), std::string::npos) << line;
}

// The box's user has a name, as a login gives one (USER, LOGNAME), also where the system has
// none for its uid (as root, a uid of the verifier's own): Python's getpass.getuser(), which
// torch inductor's cache folder is named by, answers. Nothing names the verifier.
TEST(Sandbox, TheBoxsUserHasAName) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  Scratch s;
  const BoxResult r = sh(policy(s), "python3 -c 'import getpass, os\nprint(\"user\", getpass.getuser(), os.environ[\"LOGNAME\"])\n"
                                    "print(\"named\", sorted(k for k in os.environ if \"ROPE2D\" in k.upper()))'");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  std::istringstream words(r.output.substr(r.output.find("user ")));
  std::string word, user, logname;
  ASSERT_TRUE(words >> word >> user >> logname) << r.output;
  EXPECT_FALSE(user.empty());
  EXPECT_EQ(user, logname);
  if (own_uid()) {
    EXPECT_EQ(user, "nobody") << r.output;
  }
  EXPECT_NE(r.output.find("named []"), std::string::npos) << r.output;
}

// The heap limit binds a boxed process: 256 MiB allowed, a 512 MiB allocation is refused while
// a 64 MiB one succeeds (python3's own MemoryError; the test skips without python3).
TEST(Sandbox, HeapLimitBinds) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.memory_bytes = 256ull << 20;
  const std::string grab = "python3 -c 'import sys; b = bytearray(int(sys.argv[1]) << 20); print(len(b) >> 20)' ";
  const BoxResult small = sh(p, grab + "64");
  ASSERT_TRUE(small.ok()) << small.exit_text() << small.output;
  EXPECT_NE(small.output.find("64"), std::string::npos) << small.output;
  const BoxResult big = sh(p, grab + "512");
  EXPECT_FALSE(big.ok()) << big.output;
  EXPECT_NE(big.output.find("MemoryError"), std::string::npos) << big.output;
  // Negative control: the same allocation with the default limit (three quarters of memory).
  p.limits.memory_bytes = 0;
  const BoxResult again = sh(p, grab + "512");
  EXPECT_TRUE(again.ok()) << again.exit_text() << again.output;
}

// The CPU-time limit binds a boxed process: a loop that spins until it has used 2 s of CPU is
// ended by SIGXCPU under a 1 s limit and finishes under the default (an hour), however busy the
// machine (CPU time, not wall time).
TEST(Sandbox, CpuTimeLimitBinds) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.cpu_s = 1;
  const std::string spin = "python3 -c 'import time\nwhile time.process_time() < 2: pass\nprint(\"spun\")'";
  const BoxResult bound = sh(p, spin);
  EXPECT_FALSE(bound.ok()) << bound.output;
  EXPECT_EQ(bound.output.find("spun"), std::string::npos) << bound.output;
  const BoxResult free_run = sh(policy(s), spin);  // negative control
  ASSERT_TRUE(free_run.ok()) << free_run.exit_text() << free_run.output;
  EXPECT_NE(free_run.output.find("spun"), std::string::npos) << free_run.output;
}

// The open-file limit binds: under 64 descriptors a program that opens /dev/null until refused
// gets fewer than 64, under the default (4096) more than 1000.
TEST(Sandbox, OpenFileLimitBinds) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.open_files = 64;
  const std::string open_all =
      "python3 -c 'import os\nfds = []\ntry:\n    while len(fds) < 5000:\n        fds.append(os.open(\"/dev/null\", os.O_RDONLY))\n"
      "except OSError:\n    pass\nprint(\"opened\", len(fds))'";
  auto opened = [&](const BoxPolicy& q) {
    const BoxResult r = sh(q, open_all);
    const int n = count_after(r.output, "opened");
    EXPECT_TRUE(r.ok() && n >= 0) << r.exit_text() << r.output;
    return n;
  };
  const int bound = opened(p);
  EXPECT_GT(bound, 0);
  EXPECT_LT(bound, 64);
  EXPECT_GT(opened(policy(s)), 1000);  // negative control
}

// The file-size limit binds: under 1 MiB a 2 MiB write leaves a file of 1 MiB (the writer ended
// by SIGXFSZ), under the default (16 GiB) the whole 2 MiB.
TEST(Sandbox, FileSizeLimitBinds) {
  NEED_BOX();
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.file_bytes = 1u << 20;
  const std::string write = "dd if=/dev/zero of=big bs=65536 count=32 2>/dev/null; wc -c < big; rm -f big";
  const BoxResult bound = sh(p, write);
  EXPECT_NE(bound.output.find("1048576"), std::string::npos) << bound.exit_text() << bound.output;
  const BoxResult free_run = sh(policy(s), write);  // negative control
  EXPECT_NE(free_run.output.find("2097152"), std::string::npos) << free_run.exit_text() << free_run.output;
}

// The process limit binds whoever runs the box: 40 processes beyond the user's own, and a
// program that starts 200 sleeping ones is refused part of the way (as root, for box_uid()
// alone). python3's os.fork, which reports the refusal (a shell gives up at the first).
TEST(Sandbox, ProcessLimitBinds) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.processes = 40;
  const std::string spawn =
      "python3 -c 'import os, signal, time\nkids = []\nfor _ in range(200):\n    try:\n        pid = os.fork()\n"
      "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    kids.append(pid)\n"
      "print(\"started\", len(kids))\nfor k in kids:\n    os.kill(k, signal.SIGKILL)\n'";
  const BoxResult r = sh(p, spawn);
  const int started = count_after(r.output, "started");
  ASSERT_GE(started, 0) << r.exit_text() << r.output;
  EXPECT_GT(started, 0) << r.output;
  EXPECT_LT(started, 60) << r.output;
  // Negative control: with the default limit the 200 start.
  const BoxResult free_run = sh(policy(s), spawn);
  EXPECT_NE(free_run.output.find("started 200"), std::string::npos) << free_run.output;
}
// One box's processes are its own: a box that starts processes until it is refused, and holds
// them, leaves the box of another verifying process free to start its own. As root with uids of
// their own, the kernel counts each process's boxes under its own uid, the limit outside being
// the box's own; as the shared uid, in each box's user namespace (prlimit), under a cap on all
// of them together. Counted over one uid as a whole, the second would start none. As root only
// (an ordinary user's limit also counts the tasks it runs already: the first box's, so the old
// limit would pass too), and where the box sets its limit inside (prlimit) or the uid is its own.
TEST(Sandbox, ProcessLimitIsEachBoxsOwn) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  if (::geteuid() != 0) GTEST_SKIP() << "as root only: an ordinary user's limit counts the first box's tasks in";
  if (prlimit_program().empty() && !own_uid()) GTEST_SKIP() << "no prlimit and no uid of its own: every box of a user shares one limit (the report says so)";
  OtherVerifier other(start_20, 60);
  Scratch s;
  BoxPolicy bomb = policy(s);
  bomb.limits.processes = 60;
  auto first = std::async(std::launch::async, [&] { return sh(bomb, fork_until_refused); });
  const fs::path holding = fs::path(s.path()) / "holding";
  for (int i = 0; i < 300 && !fs::exists(holding); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(holding)) << "the first box did not reach its limit within 30 s";
  const std::string second = other.run().second;
  std::ofstream(fs::path(s.path()) / "done").put('\n');  // the first box ends
  const BoxResult held = first.get();
  const int holding_n = count_after(held.output, "holding");
  ASSERT_GT(holding_n, 20) << held.exit_text() << held.output;  // the first did reach its limit
  EXPECT_LT(holding_n, 80) << held.output;
  EXPECT_EQ(count_after(second, "started"), 20) << second;
}

// What the limit set inside the box does not reach, bubblewrap's own PID 1 there (a submission
// of the same uid may trace it), is bound by the limit outside: as root with a uid of its own,
// the box's own with a few for bubblewrap's; else the cap on all boxes of the user, a quarter of
// what the machine allows (PIDs, threads), never the caller's own limit. Where that quarter is at
// least the caller's own limit, the two cannot be told apart, and the test says so.
TEST(Sandbox, BubblewrapsOwnPidOneIsCapped) {
  NEED_BOX();
  if (prlimit_program().empty()) GTEST_SKIP() << "no prlimit";
  std::uint64_t pid_max = 0, threads_max = 0;
  std::ifstream("/proc/sys/kernel/pid_max") >> pid_max;
  std::ifstream("/proc/sys/kernel/threads-max") >> threads_max;
  ASSERT_GT(pid_max, 0u);
  ASSERT_GT(threads_max, 0u);
  rlimit own{};
  ASSERT_EQ(::getrlimit(RLIMIT_NPROC, &own), 0);
  // An ordinary user's cap counts the tasks it runs already (slack for those that come and go).
  const std::uint64_t bound = own_uid() ? 40 + 16
                                        : std::max<std::uint64_t>(40, std::min(pid_max, threads_max) / 4) +
                                              (::geteuid() == 0 ? 0 : tasks_of_user(::getuid()) + 256);
  if (bound >= own.rlim_cur) GTEST_SKIP() << "the cap (" << bound << ") is no lower than the caller's own limit (" << own.rlim_cur << ")";
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.processes = 40;
  const BoxResult r = sh(p, "grep 'Max processes' /proc/1/limits; grep 'Max processes' /proc/self/limits");
  std::istringstream lines(r.output);
  std::string word1, word2;
  std::uint64_t pid_one = 0, box_own = 0;
  ASSERT_TRUE(lines >> word1 >> word2 >> pid_one) << r.exit_text() << r.output;  // "Max processes SOFT HARD ..."
  lines.ignore(1 << 10, '\n');
  ASSERT_TRUE(lines >> word1 >> word2 >> box_own) << r.output;
  EXPECT_EQ(box_own, 40u) << r.output;  // the command's own: the box's limit
  EXPECT_LE(pid_one, bound) << r.output;
}

// A submission that traces its box's PID 1 (bubblewrap's, which prlimit does not reach) and makes
// it fork until refused takes only its own uid's processes: the box of another verifying process
// still starts 20. As the uid every box shared, PID 1 forked up to the cap on all of them
// together (a quarter of the machine's PIDs: 8192 of 32768), and the other box started none. As root only (an ordinary user's
// boxes all run as that user), on x86-64.
TEST(Sandbox, ATracedPidOneLeavesOtherVerifiersBoxesFree) {
  NEED_BOX();
  if (find_program("python3").empty()) GTEST_SKIP() << "no python3";
  if (::geteuid() != 0) GTEST_SKIP() << "as root only: an ordinary user's boxes share its uid and its limit";
  if (!own_uid()) GTEST_SKIP() << "no uid of this process's own was free: its boxes share uid 65534 and the cap (the residual the threat model names)";
#if !defined(__x86_64__)
  GTEST_SKIP() << "the fork is put into PID 1 by x86-64 registers";
#else
  OtherVerifier other(start_20, 60);
  Scratch s;
  BoxPolicy p = policy(s);
  p.limits.processes = 40;
  BoxedProcess box({"/bin/sh", "-c", "touch ready; while [ ! -e done ]; do sleep 0.05; done"}, p);
  ASSERT_TRUE(box.started()) << box.start_error();
  // Its command running: PID 1 has started it and waits for it.
  for (int i = 0; i < 300 && !fs::exists(fs::path(s.path()) / "ready"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  pid_t pid_one = -1;
  for (int i = 0; i < 100 && (pid_one = child_of(box.pid())) < 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GT(pid_one, 0) << "no PID 1 under the box's bwrap";
  // The tracer holds PID 1's children until told to let them go.
  std::promise<int> forked;
  std::promise<void> release;
  std::thread tracer([&, pid_one] {
    forked.set_value(fork_through(pid_one, 20000));
    release.get_future().wait();
  });
  const int n = forked.get_future().get();
  const std::string second = other.run().second;
  release.set_value();
  tracer.join();
  std::ofstream(fs::path(s.path()) / "done").put('\n');
  box.finish(10);
  if (n == -2) GTEST_SKIP() << "tracing PID 1 was refused here (no CAP_SYS_PTRACE, or Yama's ptrace_scope)";
  ASSERT_GT(n, 0) << "PID 1 could not be made to fork";
  EXPECT_LE(n, 40 + 16) << "PID 1 started more than its box's limit";
  EXPECT_EQ(count_after(second, "started"), 20) << "PID 1 started " << n << "; the other verifier's box: " << second;
#endif
}

// The watch (harness/watch.hpp) counts, from outside, what the box refused: a write outside the
// scratch folder and /tmp (named), a connection (its address); writes inside are not counted.
TEST(Sandbox, WatchCountsWhatTheBoxRefused) {
  NEED_BOX();
  Scratch s;
  BoxPolicy p = policy(s);
  // A copy in the scratch folder, as the verifier makes one: the build tree may lie under /tmp,
  // which is the box's own.
  p.watcher = s.path() + "/host";
  fs::copy_file(ROPE2D_KERNEL_HOST, p.watcher);
  fs::permissions(p.watcher, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                                 fs::perms::others_exec);
  const std::string outside = "/var/tmp/rope2d-watch-test-" + std::to_string(::getpid());
  std::string script = "echo x > " + outside + "; echo y > inside; mkdir -p /tmp/a && echo z > /tmp/a/b; ";
  const bool python = !find_program("python3").empty();
  if (python)
    script += "python3 -c 'import socket; s = socket.socket(); s.settimeout(1)\ntry: s.connect((\"127.0.0.1\", 9))\n"
              "except OSError: pass'; ";
  const BoxResult r = sh(p, script + "true");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  ASSERT_TRUE(r.refused.watched) << r.output;
  EXPECT_EQ(r.refused.writes, 1u) << r.refused.words();
  ASSERT_FALSE(r.refused.write_paths.empty());
  EXPECT_EQ(r.refused.write_paths[0], outside);
  if (python) {
    EXPECT_EQ(r.refused.connections, 1u) << r.refused.words();
    EXPECT_NE(r.refused.words().find("127.0.0.1:9"), std::string::npos) << r.refused.words();
  }
  EXPECT_FALSE(fs::exists(outside));
  // Negative control: without the watcher nothing is counted, and the report says so.
  p.watcher.clear();
  const BoxResult unwatched = sh(p, script + "true");
  EXPECT_FALSE(unwatched.refused.watched);
  EXPECT_NE(unwatched.refused.words().find("not counted"), std::string::npos);
}

// A folder to hide under one the box's user cannot search (a report folder in root's home,
// run as root) is out of its sight already: the box starts, and the folder stays unreadable.
TEST(Sandbox, HidesFoldersItCannotReach) {
  NEED_BOX();
  Scratch s;
  const TempFolder made("/var/tmp/rope2d-private-XXXXXX");
  const std::string& dir = made.path;
  fs::permissions(dir, fs::perms::owner_all);  // 0700
  fs::create_directories(fs::path(dir) / "out");
  std::ofstream(fs::path(dir) / "out" / "report.md") << "the report";
  BoxPolicy p = policy(s);
  p.hide = {dir + "/out"};
  const BoxResult r = sh(p, "cat " + dir + "/out/report.md || echo UNREADABLE");
  ASSERT_TRUE(r.ok()) << r.exit_text() << r.output;
  if (::geteuid() == 0) {
    EXPECT_NE(r.output.find("UNREADABLE"), std::string::npos) << r.output;
  }
  EXPECT_EQ(r.output.find("the report"), std::string::npos) << r.output;
}

// The verify parent's run folder: a worker killed in a call (its destructors never run) leaves
// its scratch folder, with what its box wrote there, inside the run folder; the parent's removal
// of the run folder takes it.
// A process that must end at once (_Exit: no destructor runs) first removes every scratch
// folder it holds, whatever is in it; the owners' destructors, if they run later, leave
// alone what is gone (and any folder made since by that name, which is not theirs).
TEST(Sandbox, ScratchFoldersAreRemovedAtOnceForAnAbruptEnd) {
  auto a = std::make_unique<Scratch>();
  auto b = std::make_unique<Scratch>();
  std::ofstream(fs::path(a->path()) / "left") << "x";
  fs::create_directories(fs::path(b->path()) / "deep" / "er");
  const std::string pa = a->path(), pb = b->path();
  remove_scratch_folders_now();
  EXPECT_FALSE(fs::exists(pa));
  EXPECT_FALSE(fs::exists(pb));
  fs::create_directory(pa);  // the name taken again by someone else
  a.reset();
  b.reset();
  EXPECT_TRUE(fs::exists(pa)) << "a destructor removed a folder that was no longer its own";
  fs::remove(pa);
}

TEST(Sandbox, TheRunFolderTakesTheScratchFolderOfAKilledWorker) {
  std::string run_path, scratch_path;
  {
    const Scratch run(Scratch::Use::for_run);
    run_path = run.path();
    struct stat st {};
    ASSERT_EQ(::stat(run_path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0711u) << "the box's user must pass through the run folder, never list it";
    EXPECT_EQ(st.st_uid, ::geteuid()) << "the run folder stays the verifier's";
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t worker = ::fork();
    ASSERT_GE(worker, 0);
    if (worker == 0) {
      ::close(fds[0]);
      ::setenv("TMPDIR", run_path.c_str(), 1);
      const Scratch s;
      // The box's user reaches its scratch folder through the run folder (0711): "1" when it wrote.
      bool wrote = true;
      if (probe_sandbox().available) wrote = sh(policy(s), "mkdir -p made/by/the/box && echo x > made/by/the/box/file").ok();
      else std::ofstream(fs::path(s.path()) / "file") << "x";
      const std::string line = std::string(wrote ? "1" : "0") + s.path() + "\n";
      (void)!::write(fds[1], line.data(), line.size());
      ::pause();  // killed here, as a worker whose call overran
      ::_exit(0);
    }
    ::close(fds[1]);
    char buf[4096];
    const ssize_t k = ::read(fds[0], buf, sizeof buf);
    ::close(fds[0]);
    ::kill(worker, SIGKILL);
    ::waitpid(worker, nullptr, 0);
    ASSERT_GT(k, 2);
    EXPECT_EQ(buf[0], '1') << "the box could not write in its scratch folder inside the run folder";
    scratch_path.assign(buf + 1, static_cast<std::size_t>(k) - 2);
    EXPECT_EQ(scratch_path.rfind(run_path + "/", 0), 0u) << scratch_path << " is not inside " << run_path;
    EXPECT_TRUE(fs::exists(scratch_path)) << "the killed worker's scratch folder should still be there";
  }
  EXPECT_FALSE(fs::exists(scratch_path));
  EXPECT_FALSE(fs::exists(run_path));
}
