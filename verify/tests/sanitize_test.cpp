// `rope2d verify --sanitize`'s reading of the tools (harness/testbed/sanitize.cpp), against a
// stand-in for compute-sanitizer that prints what the real one printed on an H100 and exits as
// it does: each tool's own arguments, its first finding named (not the API errors that follow
// from it), a clean tool passed, a run that failed under the tool FAILED, no tool SKIPPED, and
// initcheck SKIPPED where a submission's kernels run in a process of their own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "harness/testbed/sanitize.hpp"

using namespace rope2d::verify;
namespace fs = std::filesystem;

namespace {

// A folder with a stand-in tool: `--tool T` prints T.out and exits with T.rc, and writes its
// arguments, one a line, to T.args.
class StandIn {
 public:
  StandIn() : dir_(fs::temp_directory_path() / ("sanitize_test." + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(tool()) << "#!/bin/sh\n"
                             "d='" << dir_.string() << "'\n"
                             "t=''; prev=''\n"
                             "for a in \"$@\"; do [ \"$prev\" = --tool ] && t=$a; prev=$a; done\n"
                             "printf '%s\\n' \"$@\" > \"$d/$t.args\"\n"
                             "cat \"$d/$t.out\"\n"
                             "exit $(cat \"$d/$t.rc\")\n";
    fs::permissions(tool(), fs::perms::owner_all);
  }
  ~StandIn() { fs::remove_all(dir_); }

  std::string tool() const { return (dir_ / "compute-sanitizer").string(); }
  std::string out() const { return (dir_ / "out").string(); }

  void set(const std::string& t, const std::string& output, int rc) const {
    std::ofstream(dir_ / (t + ".out")) << output;
    std::ofstream(dir_ / (t + ".rc")) << rc << "\n";
  }

  std::string args(const std::string& t) const {
    std::ifstream in(dir_ / (t + ".args"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  bool ran(const std::string& t) const { return fs::exists(dir_ / (t + ".args")); }

  // The project's own kernel (in the verifier's process), or a submission's (in a host process).
  std::map<std::string, SanitizerResult> run(bool kernels_in_child = false) const {
    std::map<std::string, SanitizerResult> by_tool;
    for (const SanitizerResult& r : run_sanitizers(tool(), "/bin/rope2d-self", {"verify", "--sanitize-set"}, out(), kernels_in_child))
      by_tool[r.tool] = r;
    return by_tool;
  }

 private:
  fs::path dir_;
};

// memcheck's log of an out-of-bounds read in the kernel host (abridged from an H100's, and a
// warning put before it).
const char* invalid_read =
    "========= COMPUTE-SANITIZER\n"
    "========= Warning: a warning of the tool's, not a finding\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at k(const void *, const void *, const float *, float *, long, int)+0x200\n"
    "=========     Access to 0x7fdda7600000 is out of bounds\n"
    "========= \n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call to "
    "cudaStreamSynchronize.\n"
    "failed: 27 passed, 0 incorrect, 6 failed to run (gate: float32-bound)\n"
    "========= Target application returned an error\n"
    "========= ERROR SUMMARY: 2 errors\n";

const char* clean_race =
    "========= COMPUTE-SANITIZER\n"
    "passed: 37 passed, 0 incorrect, 0 failed to run (gate: float32-bound)\n"
    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";

}  // namespace

TEST(Sanitize, NamesTheToolsFirstFindingAndPassesACleanTool) {
  const StandIn s;
  s.set("memcheck", invalid_read, 86);
  s.set("racecheck", clean_race, 0);
  s.set("initcheck", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", 0);
  auto r = s.run();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r["memcheck"].status, "FAILED");
  EXPECT_EQ(r["memcheck"].detail, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(r["racecheck"].status, "passed") << r["racecheck"].detail;
  EXPECT_EQ(r["initcheck"].status, "passed") << r["initcheck"].detail;
  // Each tool's log is where the result says, whole.
  std::ifstream log(r["memcheck"].log);
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_EQ(text.str(), invalid_read);
}

TEST(Sanitize, EachToolGetsItsOwnArguments) {
  const StandIn s;
  for (const char* t : {"memcheck", "racecheck", "initcheck"}) s.set(t, clean_race, 0);
  s.run();
  const std::string mem = s.args("memcheck"), race = s.args("racecheck"), init = s.args("initcheck");
  EXPECT_NE(mem.find("--leak-check\nno\n"), std::string::npos) << mem;
  EXPECT_EQ(race.find("--leak-check"), std::string::npos) << race;
  EXPECT_EQ(init.find("--leak-check"), std::string::npos) << init;
  for (const std::string& a : {mem, race, init}) {
    EXPECT_NE(a.find("--target-processes\nall\n"), std::string::npos) << a;  // the kernel host is followed
    EXPECT_NE(a.find("/bin/rope2d-self\nverify\n--sanitize-set\n--out\n"), std::string::npos) << a;
  }
}

TEST(Sanitize, ARunThatFailedUnderTheToolFailsAndAMissingToolIsSkipped) {
  const StandIn s;
  s.set("memcheck", "========= COMPUTE-SANITIZER\nfailed     flush/bf16/n=1   cudaErrorIllegalAddress after the call\n", 3);
  s.set("racecheck", clean_race, 0);
  s.set("initcheck", clean_race, 0);
  auto r = s.run();
  EXPECT_EQ(r["memcheck"].status, "FAILED");
  EXPECT_EQ(r["memcheck"].detail.rfind("the run under the tool failed: ", 0), 0u) << r["memcheck"].detail;
  EXPECT_NE(r["memcheck"].detail.find("cudaErrorIllegalAddress"), std::string::npos) << r["memcheck"].detail;

  for (const SanitizerResult& m : run_sanitizers(s.out() + "/no-such-tool", "/bin/rope2d-self", {"verify"}, s.out(), false)) {
    EXPECT_EQ(m.status, "SKIPPED") << m.tool;
    EXPECT_NE(m.detail.find("could not be started"), std::string::npos) << m.detail;
  }
}

TEST(Sanitize, InitcheckIsSkippedWhereTheKernelsRunInAProcessOfTheirOwn) {
  const StandIn s;
  s.set("memcheck", invalid_read, 86);
  s.set("racecheck", clean_race, 0);
  s.set("initcheck", clean_race, 0);
  // An earlier run's log in the same --out goes: it is not this run's.
  std::filesystem::create_directories(s.out());
  std::ofstream(s.out() + "/initcheck.log") << "an earlier run's\n";
  auto r = s.run(true);
  EXPECT_FALSE(fs::exists(s.out() + "/initcheck.log"));
  ASSERT_EQ(r.size(), 3u);
  // memcheck and racecheck follow the kernels into their process (--target-processes all).
  EXPECT_EQ(r["memcheck"].status, "FAILED");
  EXPECT_EQ(r["memcheck"].detail, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(r["racecheck"].status, "passed");
  // initcheck is not run at all, and says why; it has no log.
  EXPECT_FALSE(s.ran("initcheck"));
  EXPECT_TRUE(s.ran("memcheck") && s.ran("racecheck"));
  EXPECT_EQ(r["initcheck"].status, "SKIPPED");
  EXPECT_NE(r["initcheck"].detail.find("cannot follow the device memory"), std::string::npos) << r["initcheck"].detail;
  EXPECT_TRUE(r["initcheck"].log.empty());
}
