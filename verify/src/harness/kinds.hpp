// The kinds of submission the verifier takes, one line each in the registry (kinds.cpp): the
// ending of a file's name that makes it one (the one suffix table), the words the report uses,
// how it is made ready (compiled by nvcc in the box, copied into the box whole, or a
// SOL-ExecBench solution's sources written out) and how its calls reach the judge (the kernel
// host over the C ABI, or the Python host). A new format that is made ready and called as an
// existing one is one more line (a shared object exporting an entry point of another name,
// say); one that needs a new way is one more harness file besides, named in its line (`make`).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace rope2d::verify::harness {

enum class Preparation { nvcc_build, copy_library, solution };
// own: a harness of its own, made by the kind's `make` (neither host's).
enum class Host { kernel, python, own };

class Harness;          // harness.hpp
struct HarnessOptions;  // harness.hpp
struct SubmissionKind;
// The kind comes as a copy, which the harness may keep: the registry may move as it grows.
using MakeHarness = std::unique_ptr<Harness> (*)(SubmissionKind kind, const HarnessOptions& o);

struct SubmissionKind {
  std::string_view name;    // the report's "kind"
  std::string_view suffix;  // the ending of the file's name: ".cu", ".so", ".json"
  Preparation preparation;
  Host host;
  std::string_view symbol = "rope2d_backward";              // the C ABI entry point the kernel host looks up
  std::string_view fused_symbol = "rope2d_backward_fused";  // its optional fused entry point
  MakeHarness make = nullptr;                               // Host::own: its harness (a harness file's factory)
};

// Every kind, in the registry's order.
std::span<const SubmissionKind> submission_kinds();

// One more kind for this process (a program of its own built on the library, a test): as a
// line in kinds.cpp's table would be. invalid_argument when its ending is taken or empty, or
// when it has a `make` but not Host::own, or the reverse.
void add_submission_kind(const SubmissionKind& k);

// The kind of the file at `path`, by the longest ending of its name that a kind has; nullptr
// when none has it.
const SubmissionKind* kind_of(std::string_view path);

// The endings the registry knows, for a message: ".cu, .so or .json".
std::string kind_suffixes();

}  // namespace rope2d::verify::harness
