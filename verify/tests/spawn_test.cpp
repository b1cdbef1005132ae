// Child processes (harness/spawn.cpp): find_program's PATH search (absolute entries only, regular
// executable files only, /usr/bin and /bin last), and a child's stderr inherited as it is,
// which starts where reopening /dev/stderr cannot (here fd 2 a socket): the cause of
// `rope2d bench --torch` failing with "cannot run python3 ...: No such file or directory".
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/fault_stack.hpp"
#include "harness/spawn.hpp"

using namespace rope2d::verify;
namespace fs = std::filesystem;

namespace {

// PATH set for one test, restored after.
class WithPath {
 public:
  explicit WithPath(const std::string& path) {
    const char* old = std::getenv("PATH");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~WithPath() { had_ ? ::setenv("PATH", old_.c_str(), 1) : ::unsetenv("PATH"); }

 private:
  bool had_ = false;
  std::string old_;
};

class FindProgram : public testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("rope2d_spawn_test_" + std::to_string(::getpid()));
    fs::create_directories(dir / "bin" / "rope2d-spawn-dir");
    write(dir / "bin" / "rope2d-spawn-tool", 0755);
    write(dir / "bin" / "rope2d-spawn-plain", 0644);
    fs::permissions(dir / "bin" / "rope2d-spawn-dir", fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir); }
  static void write(const fs::path& p, int mode) {
    std::ofstream(p) << "#!/bin/sh\necho ran\n";
    ::chmod(p.c_str(), static_cast<mode_t>(mode));
  }
  fs::path dir;
};

// Runs `sh -c script` with its stderr inherited; what it wrote to stdout.
SpawnResult run_inherited(const std::string& script, std::string& out) {
  return run_program({"sh", "-c", script}, ChildStderr::inherited(), [&](const char* d, std::size_t n) { out.append(d, n); });
}

// fd 2 replaced for one test (closed, or a socket), restored after.
class Fd2 {
 public:
  Fd2() : saved_(::dup(2)) {}
  ~Fd2() {
    ::dup2(saved_, 2);
    ::close(saved_);
  }

 private:
  int saved_;
};

}  // namespace

TEST_F(FindProgram, TakesTheFirstExecutableFileOfAnAbsoluteEntry) {
  WithPath p("/nonexistent:" + (dir / "bin").string());
  EXPECT_EQ(find_program("rope2d-spawn-tool"), (dir / "bin" / "rope2d-spawn-tool").string());
}

TEST_F(FindProgram, SkipsWhatCannotRunAndRelativeEntries) {
  WithPath p((dir / "bin").string());
  EXPECT_EQ(find_program("rope2d-spawn-plain"), "") << "not executable";
  EXPECT_EQ(find_program("rope2d-spawn-dir"), "") << "a directory, searchable, is no program";
  EXPECT_EQ(find_program("bin/rope2d-spawn-tool"), "") << "a name with a slash is a path, not a name to look up";
  EXPECT_EQ(find_program(""), "");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  WithPath relative("bin");
  const std::string found = find_program("rope2d-spawn-tool");
  fs::current_path(cwd);
  EXPECT_EQ(found, "") << "a relative PATH entry depends on the working directory: never used";
}

TEST_F(FindProgram, OwnProgramsBesideTheProgramThenUnderItsPrefixNeverTheWorkingDirectory) {
  // A program at <dir>/prefix/bin/rope2d: its helpers beside it, then under <dir>/prefix's libexec.
  const fs::path self = dir / "prefix" / "bin" / "rope2d";
  std::vector<std::string> looked;
  EXPECT_EQ(find_own_program("rope2d-spawn-tool", &looked, self.string()), "") << "none there yet";
  ASSERT_EQ(looked.size(), 2u);
  EXPECT_EQ(looked[0], (self.parent_path() / "rope2d-spawn-tool").string());
  EXPECT_TRUE(looked[1].starts_with((dir / "prefix").string()) && looked[1].ends_with("/rope2d/rope2d-spawn-tool")) << looked[1];
  fs::create_directories(fs::path(looked[1]).parent_path());
  write(looked[1], 0755);
  EXPECT_EQ(find_own_program("rope2d-spawn-tool", nullptr, self.string()), looked[1]) << "the installed one";
  fs::create_directories(self.parent_path());
  write(looked[0], 0644);
  EXPECT_EQ(find_own_program("rope2d-spawn-tool", nullptr, self.string()), looked[1]) << "one beside that cannot run is passed over";
  ::chmod(looked[0].c_str(), 0755);
  EXPECT_EQ(find_own_program("rope2d-spawn-tool", nullptr, self.string()), looked[0]) << "beside the program first";
  // Neither the working directory nor the PATH: a tool planted there is not ours.
  write(dir / "bin" / "rope2d-planted", 0755);
  const fs::path cwd = fs::current_path();
  fs::current_path(dir / "bin");
  WithPath p((dir / "bin").string());
  const std::string planted = find_own_program("rope2d-planted", nullptr, self.string());
  fs::current_path(cwd);
  EXPECT_EQ(planted, "");
  EXPECT_EQ(find_own_program("bin/rope2d-spawn-tool", nullptr, (dir / "x").string()), "") << "a name, never a path";
}

TEST_F(FindProgram, FallsBackToUsrBinAndBin) {
  WithPath p("");
  const std::string sh = find_program("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_TRUE(sh == "/usr/bin/sh" || sh == "/bin/sh") << sh;
}

TEST(ChildStderr, ReopeningDevStderrFailsWhereFd2IsASocketAsIfTheProgramWereMissing) {
  // The defect the inherited stderr replaces: the open is a file action run in the child, and
  // its failure is posix_spawn's, reported as the program's ("cannot run sh: ..."). Where fd 2
  // is a socket the open fails with ENXIO; where /dev/stderr or /proc is absent, with ENOENT.
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  SpawnResult r;
  {
    Fd2 keep;
    ::dup2(sv[0], 2);
    r = run_program({"sh", "-c", "exit 0"}, "/dev/stderr", [](const char*, std::size_t) {});
  }
  ::close(sv[0]);
  ::close(sv[1]);
  EXPECT_FALSE(r.started) << "reopening /dev/stderr worked here: this test no longer shows the defect";
  EXPECT_TRUE(r.start_error.starts_with("cannot run sh: ")) << r.start_error;
}

TEST(ChildStderr, InheritedGoesToOurStderrWhenItIsASocket) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::string out;
  SpawnResult r;
  {
    Fd2 keep;
    ::dup2(sv[0], 2);
    r = run_inherited("echo out; echo err >&2", out);
  }
  ::close(sv[0]);
  char buf[64] = {};
  const ssize_t n = ::read(sv[1], buf, sizeof buf - 1);
  ::close(sv[1]);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.code(), 0);
  EXPECT_EQ(out, "out\n");
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "err\n");
}

TEST(ChildStderr, APathIsStillAFileAndEmptyStillJoinsStdout) {
  const fs::path log = fs::temp_directory_path() / ("rope2d_spawn_log_" + std::to_string(::getpid()));
  std::string out;
  SpawnResult r = run_program({"sh", "-c", "echo out; echo err >&2"}, log.string(), [&](const char* d, std::size_t n) { out.append(d, n); });
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(out, "out\n");
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(log);
  EXPECT_EQ(text, "err\n");
  out.clear();
  r = run_program({"sh", "-c", "echo out; echo err >&2"}, "", [&](const char* d, std::size_t n) { out.append(d, n); });
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_NE(out.find("err\n"), std::string::npos) << out;
}

TEST(StackOnFault, AFaultIsTheProcesssOwnNotAKillFromOutside) {
  using rope2d::verify::harness::fault_signal;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP}) EXPECT_TRUE(fault_signal(sig)) << sig;
  for (int sig : {SIGKILL, SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGXCPU, 0}) EXPECT_FALSE(fault_signal(sig)) << sig;
}

TEST(StackOnFault, AFaultSaysWhereAndStillEndsByItsSignal) {
  // Control (installed false): the same fault with the default action writes nothing.
  for (const bool installed : {true, false}) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::dup2(p[1], 2);
      ::close(p[0]);
      ::close(p[1]);
      ::signal(SIGSEGV, SIG_DFL);  // no handler of a sanitizer's either
      if (installed) rope2d::verify::harness::stack_on_fault("test child");
      ::raise(SIGSEGV);
      ::_exit(0);
    }
    ::close(p[1]);
    std::string err;
    char buf[4096];
    for (ssize_t k; (k = ::read(p[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(k));
    ::close(p[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << "installed " << installed << ", status " << status;
    if (installed) {
      const std::string head = "test child: signal 11 (SEGV); its stack:\n";
      const std::size_t at = err.find(head);
      ASSERT_NE(at, std::string::npos) << err;
      EXPECT_GE(std::count(err.begin() + static_cast<std::ptrdiff_t>(at + head.size()), err.end(), '\n'), 2) << err;
    } else {
      EXPECT_EQ(err, "");
    }
  }
}
