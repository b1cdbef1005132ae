// The registry of submission kinds (harness/kinds.hpp): the one table from a file's name to
// its kind, and a format the verifier does not ship added as one line (add_submission_kind,
// as a line of kinds.cpp's table would be): a shared object whose entry point is named
// rope2d_backward_v2, made ready and loaded by the kernel host in the box like any other.
#include "harness/kinds.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "harness/sandbox.hpp"
#include "harness/submission.hpp"

namespace fs = std::filesystem;
using namespace rope2d::verify;
using namespace rope2d::verify::harness;

TEST(SubmissionKinds, EachFileNameHasOneKind) {
  std::set<std::string_view> suffixes, names;
  for (const SubmissionKind& k : submission_kinds()) {
    EXPECT_TRUE(suffixes.insert(k.suffix).second) << k.suffix << " twice";
    EXPECT_TRUE(names.insert(k.name).second) << k.name << " twice";
  }
  ASSERT_NE(kind_of("kernel.cu"), nullptr);
  EXPECT_EQ(kind_of("kernel.cu")->preparation, Preparation::nvcc_build);
  EXPECT_EQ(kind_of("dir.cu/libkernel.so")->preparation, Preparation::copy_library);
  EXPECT_EQ(kind_of("solution.json")->host, Host::python);
  EXPECT_EQ(kind_of("kernel.txt"), nullptr);
  EXPECT_EQ(kind_of(".so"), nullptr);  // an ending alone names no file of that kind
  EXPECT_EQ(kind_suffixes(), ".cu, .so or .json");
}

namespace {

// The box of a load check, as the verifier's (no GPU needed).
BoxPolicy load_box(const Scratch& s) {
  BoxPolicy p;
  p.scratch = s.path();
  p.env = box_environment(s.path());
  p.limits.wall_s = 60;
  return p;
}

}  // namespace

TEST(SubmissionKinds, ANewFormatIsOneLine) {
  // The line: a shared object ending .v2.so, whose entry point is rope2d_backward_v2.
  add_submission_kind({"shared-object (v2 entry point)", ".v2.so", Preparation::copy_library, Host::kernel, "rope2d_backward_v2",
                       "rope2d_backward_v2_fused"});
  EXPECT_THROW(add_submission_kind({"again", ".v2.so", Preparation::copy_library, Host::kernel}), std::invalid_argument);
  EXPECT_EQ(kind_of("libkernel.v2.so")->symbol, "rope2d_backward_v2");  // the longest ending wins
  EXPECT_EQ(kind_of("libkernel.so")->symbol, "rope2d_backward");
  if (!probe_sandbox().available) GTEST_SKIP() << "no box here: " << probe_sandbox().reason;
  const fs::path dir = fs::temp_directory_path() / ("rope2d_kinds_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path v2 = dir / "libmine.v2.so";
  fs::copy_file(ROPE2D_V2_LIBRARY, v2, fs::copy_options::overwrite_existing);
  {
    const Scratch s;
    Submission sub = prepare_submission(v2.string(), {.box = load_box(s)});
    ASSERT_EQ(sub.error, "");
    EXPECT_EQ(sub.kind, "shared-object (v2 entry point)");
    EXPECT_EQ(probe_submission(sub, kernel_host_program(s.path()), load_box(s)), "") << "the kernel host did not load it";
  }
  {
    // The control: the same library as a kind whose entry point it lacks.
    add_submission_kind({"shared-object (v3 entry point)", ".v3.so", Preparation::copy_library, Host::kernel, "rope2d_backward_v3"});
    const fs::path v3 = dir / "libmine.v3.so";
    fs::copy_file(ROPE2D_V2_LIBRARY, v3, fs::copy_options::overwrite_existing);
    const Scratch s;
    Submission sub = prepare_submission(v3.string(), {.box = load_box(s)});
    ASSERT_EQ(sub.error, "");
    EXPECT_NE(probe_submission(sub, kernel_host_program(s.path()), load_box(s)).find("missing symbol rope2d_backward_v3"),
              std::string::npos);
  }
  fs::remove_all(dir);
}
