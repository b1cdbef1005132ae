// Unit tests of the solution.json path on the CPU: reading solution.json, the shapes a solution
// is called with, and the Python host's notes as the judge reads them. The calls themselves
// run on the testbed and need a GPU (python_solutions_test.sh, on the device).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/solution.hpp"

using namespace rope2d;
using namespace rope2d::verify;
namespace fs = std::filesystem;

namespace {

std::string tmp(const std::string& name) {
  return (fs::temp_directory_path() / ("rope2d_solution_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string solution_file(const std::string& body) {
  const std::string p = tmp("solution.json");
  std::ofstream(p) << body;
  return p;
}

const char* good_solution =
    R"({"name": "t", "definition": "d", "author": "a", "spec": {"languages": ["pytorch"], "target_hardware": ["LOCAL"], "entry_point": "kernel.py::run", "binding": "torch",
        "destination_passing_style": true},
        "sources": [{"path": "kernel.py", "content": "def run(a, b, c, d):\n    pass\n"}]})";

std::vector<ProblemSpec> small_specs() {
  return {ProblemSpec{.set = "randn", .seq_len = 3, .seed = 4},
          ProblemSpec{.set = "layout", .source = AngleSource::layout, .seq_len = 5, .seed = 5},
          ProblemSpec{.set = "near_axis", .source = AngleSource::regime, .regime = ref::Regime::near_axis, .elements = 77, .seed = 6}};
}

}  // namespace

TEST(Solution, FlatProblemsAreShapedByTheDefinitionsAxes) {
  ProblemSpec flat;
  flat.set = "odd";
  flat.elements = 256;
  EXPECT_EQ(solution_shape(flat, 128), (std::vector<std::int64_t>{1, 2, 128}));
  EXPECT_EQ(solution_shape(flat, 0), (std::vector<std::int64_t>{256}));
  EXPECT_TRUE(on_axes(flat, 128));
  flat.elements = 100;  // not a multiple of head_dim: flat, and beyond the definition
  EXPECT_EQ(solution_shape(flat, 128), (std::vector<std::int64_t>{100}));
  EXPECT_FALSE(within_definition(flat, {ref::Dtype::bf16}, 128));
  const ProblemSpec shaped{.set = "randn", .seq_len = 3, .seed = 4};
  EXPECT_EQ(solution_shape(shaped, 128), shaped.shape());
}

TEST(Solution, MalformedSolutionsAreRejectedWithTheField) {
  // Each rule case by case: schema_test.cpp. Here: what prepare_solution throws.
  auto message = [](const std::string& body) {
    try {
      prepare_solution(solution_file(body), tmp("bad"));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("{").find("not valid JSON"), std::string::npos);
  const std::string head = R"({"name": "t", "definition": "d", "author": "a", "spec": {"languages": ["pytorch"], "target_hardware": ["LOCAL"], )";
  EXPECT_NE(message(head + R"("entry_point": "kernel.py"}, "sources": [{"path": "kernel.py", "content": "x"}]})").find("spec.entry_point"),
            std::string::npos);
  EXPECT_NE(message(head + R"("entry_point": "k.py::run", "binding": "jax"}, "sources": [{"path": "k.py", "content": "x"}]})")
                .find("spec.binding"),
            std::string::npos);
  EXPECT_NE(message(head + R"("entry_point": "k.py::run"}, "sources": [{"path": "/etc/x.py", "content": "x"}]})")
                .find("sources[0].path: expected a relative path"),
            std::string::npos);
  EXPECT_NE(message(head + R"("entry_point": "k.py::run"}, "sources": [{"path": "other.py", "content": "x"}]})")
                .find("a file that sources provides"),
            std::string::npos);
  EXPECT_EQ(message(good_solution), "accepted");
  fs::remove_all(tmp("bad"));
  fs::remove_all(tmp("src"));
}

TEST(Solution, LaterRoundsDrawFreshInputsOfTheSameShape) {
  // A kernel that caches results by address is caught only if round 1 differs from round 0.
  for (const ProblemSpec& s : small_specs()) {
    const Problem a = make_problem(s.round(0)), b = make_problem(s.round(1));
    EXPECT_EQ(s.round(1).shape(), s.shape());
    EXPECT_EQ(a.n(), b.n());
    EXPECT_NE(a.gc, b.gc) << s.name();
  }
}

TEST(Solution, OfficialDefaultsOfCompileOptions) {
  auto load = [](const std::string& spec, const std::string& file) {
    return prepare_solution(solution_file(R"({"name": "t", "definition": "d", "author": "a", "spec": )" + spec +
                                          R"(, "sources": [{"path": ")" + file + R"(", "content": "x"}]})"),
                            tmp("schema"));
  };
  // Official defaults: no cuda_cflags means fast math, which is said in a warning.
  const Solution fast = load(R"({"languages": ["cuda_cpp"], "target_hardware": ["LOCAL"], "entry_point": "k.cu::run"})", "k.cu");
  EXPECT_TRUE(fast.cpp);
  ASSERT_EQ(fast.warnings.size(), 1u);
  EXPECT_NE(fast.warnings[0].find("--use_fast_math"), std::string::npos);
  const Solution null_opts =
      load(R"({"languages": ["cuda_cpp"], "target_hardware": ["LOCAL"], "entry_point": "k.cu::run", "compile_options": null})", "k.cu");
  EXPECT_EQ(null_opts.warnings.size(), 1u);
  const Solution exact = load(R"({"languages": ["cuda_cpp"], "target_hardware": ["LOCAL"], "entry_point": "k.cu::run",
                                  "compile_options": {"cuda_cflags": ["-O3"]}})",
                              "k.cu");
  EXPECT_TRUE(exact.warnings.empty());
  EXPECT_EQ(exact.compile_options.dump(), R"({"cuda_cflags":["-O3"]})");
  EXPECT_EQ(null_opts.compile_options.dump(), "{}");
  fs::remove_all(tmp("schema"));
}

TEST(Solution, EverySampleSolutionLoads) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(std::string(ROPE2D_TEST_DIR) + "/solutions")) {
    if (e.path().extension() != ".json") continue;
    const Solution s = prepare_solution(e.path().string(), tmp("samples"));
    EXPECT_FALSE(s.languages.empty()) << e.path();
    EXPECT_EQ(s.cpp, s.languages[0] == "cuda_cpp") << e.path();
    ++n;
  }
  EXPECT_GE(n, 4);
  fs::remove_all(tmp("samples"));
}

// The Python host's notes (python/rope2d/runner/host_serve.py), read into events
// (harness/host_notes_test.cpp tests the reading) and folded into a call's result or the host's
// start: its errors and findings fail a call, with the cause it names; anything else is ignored.
namespace {

harness::wire::HostEvent call_note(const std::string& text) { return harness::wire::parse_host_note({5, text}).event; }
harness::wire::HostEvent host_note(const std::string& text) { return harness::wire::parse_host_note({0, text}).event; }

}  // namespace

TEST(HostNotes, ACallsErrorReplacesTheTestbedsWordsWithItsCause) {
  CallResult c;
  c.error = "returned 1 (cudaErrorInvalidValue)";
  EXPECT_DOUBLE_EQ(fold_call_note(call_note(R"({"error": "output float32 [1, 2], expected float32 [2, 1]", "kind": "shape"})"), c), 0.0);
  EXPECT_EQ(c.error, "output float32 [1, 2], expected float32 [2, 1]");
  EXPECT_EQ(c.error_cause, Cause::shape);
  CallResult d;
  fold_call_note(call_note(R"({"error": "output float16 [4], expected float32 [4]", "kind": "dtype"})"), d);
  EXPECT_EQ(d.error_cause, Cause::dtype);
  // A call's error is never a build error: a note that says so is not the protocol, and the
  // call keeps the testbed's own words.
  CallResult e;
  e.error = "returned 1 (cudaErrorInvalidValue)";
  fold_call_note(call_note(R"({"error": "ValueError: no", "kind": "build"})"), e);
  EXPECT_EQ(e.error, "returned 1 (cudaErrorInvalidValue)");
  EXPECT_EQ(e.error_cause, Cause::runtime);
}

TEST(HostNotes, FindingsAreAddedOnceAndWallTimesRead) {
  CallResult c;
  c.findings = {"guard band changed"};
  const std::string n = R"({"wall_s": 0.25, "findings": ["the call left the current CUDA stream switched", "guard band changed"]})";
  EXPECT_DOUBLE_EQ(fold_call_note(call_note(n), c), 0.25);
  fold_call_note(call_note(n), c);
  EXPECT_EQ(c.findings, (std::vector<std::string>{"guard band changed", "the call left the current CUDA stream switched"}));
  EXPECT_TRUE(c.error.empty());
}

TEST(HostNotes, WhatIsNotANoteChangesNothing) {
  for (const char* text : {"", "[]", "not json", R"({"wall_s": -3})", R"({"error": 5})", R"({"findings": "one"})", "\xff\xfe",
                           R"({"note": "a note longer than the protocol allows, cut", "kind": "runtime"})",
                           R"({"type": "load", "import_s": 1, "patched": ["torch.sin"], "state": [], "threads": []})"}) {
    CallResult c;
    EXPECT_DOUBLE_EQ(fold_call_note(call_note(text), c), 0.0) << text;
    EXPECT_TRUE(c.error.empty() && c.findings.empty()) << text;
  }
}

TEST(HostNotes, TheHostsStartSaysWhatTheImportChangedOrWhyItFailed) {
  HostStart s;
  read_host_note(host_note(R"({"type": "load", "import_s": 1.5, "patched": ["torch.sin"], "state": [], "threads": []})"), s);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("torch.sin"), std::string::npos);
  EXPECT_TRUE(s.load_error.empty());
  read_host_note(host_note(R"({"type": "build", "how": "nvcc -O3"})"), s);
  ASSERT_EQ(s.notes.size(), 2u);
  EXPECT_EQ(s.notes[1], "built nvcc -O3");
  read_host_note(host_note(R"({"type": "load_error", "kind": "build", "message": "cannot build kernel.cu::run: nvcc failed"})"), s);
  EXPECT_EQ(s.load_error, "cannot build kernel.cu::run: nvcc failed");
  EXPECT_EQ(s.load_cause, Cause::build);
  HostStart t;
  read_host_note(host_note(R"({"type": "load_error", "kind": "load", "message": ""})"), t);
  EXPECT_FALSE(t.load_error.empty());
  EXPECT_EQ(t.load_cause, Cause::runtime);
  // A load error cut to its kind keeps its cause; a cut note of another kind is no error.
  for (const auto& [kind, cause] : {std::pair{"build", Cause::build}, std::pair{"load", Cause::runtime}}) {
    HostStart cut;
    read_host_note(host_note(std::string(R"({"note": "a note longer than the protocol allows, cut", "kind": ")") + kind + "\"}"), cut);
    EXPECT_NE(cut.load_error.find("cut"), std::string::npos) << kind;
    EXPECT_EQ(cut.load_cause, cause) << kind;
  }
  HostStart u;
  for (const char* text : {"{", R"({"type": 3})", R"({"note": "a note longer than the protocol allows, cut", "kind": "runtime"})", R"({"type": "load_error", "kind": "load"})", R"({"error": "x", "kind": "runtime"})",
                           R"({"type": "build", "how": ""})", R"({"wall_s": 1, "findings": ["x"]})"})
    read_host_note(host_note(text), u);
  EXPECT_TRUE(u.notes.empty() && u.load_error.empty());
}
