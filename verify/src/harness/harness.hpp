// One harness per kind of host behind one interface: what `verify()` (products/verify/verify.hpp)
// and the no-GPU path of `rope2d verify` ask of a submission. A harness makes the submission
// ready in the box (prepare), says what it is in the report's header, hands the judge its
// entries, checks what it can without a GPU, and gives the box's words at its end. The
// registry (harness_for) maps a file's name to its kind (kinds.hpp, the one suffix table) and
// the kind's host to its harness: the kernel host over the C ABI (kernel_harness.cpp, also the
// project's own kernel in this process) or the Python host of a solution (python_harness.cpp).
// A caller's own function (the C API's rope2d_verify) is a harness of its own, outside the
// registry: called in the caller's process (caller_harness.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/kinds.hpp"
#include "harness/sandbox.hpp"
#include "harness/solution.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/model/report.hpp"

namespace rope2d::verify {
class Testbed;  // harness/testbed/device.hpp
}

namespace rope2d::verify::harness {

// What a harness needs from its caller: the run's box and limits, where the build and the
// solution's sources go.
struct HarnessOptions {
  std::string submission;  // its path as given
  // The box of this run's submission processes, its scratch folder given, with or without the GPU.
  std::function<BoxPolicy(const std::string& scratch, bool gpu)> box;
  std::string nvcc = "nvcc";
  std::vector<std::string> nvcc_flags;
  std::string include_dir;  // the ABI header's folder
  std::string out_dir;      // the report folder: build/ and solution/ are written there
  std::string python = "python3";
  std::vector<std::string> python_runner;  // the command that runs rope2d.runner with `python`
  double build_timeout_s = 600, load_timeout_s = 120, call_timeout_s = 20;  // --build-timeout, --load-timeout, --call-timeout
  // A solution's definition as the caller read it, which chose the sets and their shapes
  // (cmd_verify.cpp): the header and the calls' shapes follow it, not a second read of the
  // file. None: the harness reads it (definition_scope).
  std::optional<DefinitionScope> definition;
  // The submission's folder as the caller opened it (folder_file.hpp): every read of the
  // submission, in this process or the caller's, is beneath that one descriptor. None: opened
  // here, once, by the path.
  std::shared_ptr<const SubmitterFolder> folder;
};

// Why a submission could not be made ready or serve any call, and the cause its sets fail under.
struct Unprepared {
  std::string why;
  Cause cause = Cause::runtime;
};

// The C ABI entry points a harness calls through, for the checks that call them directly: the
// call contract, the --huge sets and the benchmark.
struct CAbi {
  rope2d_backward_fn backward = nullptr;
  Testbed* bed = nullptr;  // the testbed of the harness's entries
};

// How the judge runs a harness's entries.
struct Judging {
  bool device_inputs = false;      // the counter-based sets made and judged on the GPU (Judge::device_inputs)
  bool stop_set_on_error = false;  // a set ends at its first failed call (Judge::stop_set_on_error)
  bool ends_after_host = false;    // its sets' end events are sent once the host has ended, not as each is judged
};

using HeaderLine = std::pair<std::string, std::string>;

// A wall-clock limit as the report's "time limits" line says it ("600 s").
std::string seconds(double s);
using Say = std::function<void(const std::string&)>;  // a line on the terminal, about the submission

class Harness {
 public:
  virtual ~Harness() = default;
  // The report's "kind": "builtin" or the kind's name (kinds.hpp).
  virtual std::string_view kind() const = 0;
  // Builds or loads the submission in the box and starts its host; nullopt when it is ready.
  virtual std::optional<Unprepared> prepare() = 0;
  // After prepare: the report's title, header lines (the machine's, `machine`, among them) and warnings.
  virtual void header(Report& rep, const std::vector<HeaderLine>& machine) const = 0;
  // A host that started but serves no call (its own load error): every set fails with its words.
  virtual std::optional<Unprepared> unserved() { return std::nullopt; }
  // How its entries are judged; `device_inputs` whether the run asks for the GPU's inputs.
  virtual Judging judging(bool device_inputs) const = 0;
  // The entries the judge calls, judging on the GPU as `judging` says.
  virtual std::vector<Entry> entries(Tier gate, Subnormals subnormals, bool device_inputs) = 0;
  // Its C ABI entry point, where the run's added checks may call it directly; none: not run.
  virtual std::optional<CAbi> c_abi() { return std::nullopt; }
  // After the suite and the added checks: what the run adds to the report (time, the host's notes).
  virtual void judged(Report& rep, const Phases& t, bool device_inputs) { (void)rep, (void)t, (void)device_inputs; }
  // The host's end: the box's words (its exit, what it refused, processes left); after a
  // failed prepare, what the box refused it.
  virtual void end(Report& rep) = 0;
  // Without a GPU: what can be checked of the submission (built or compiled in the box, loaded);
  // its words to the report and, through `say`, the terminal; why it failed, if it did.
  virtual std::optional<Unprepared> cpu_checks(Report& rep, const Say& say) = 0;
};

// The registry: the harness of the file at `o.submission`, by its kind's host (kinds.hpp), or
// made by the kind's own `make` (Host::own: a format with a harness file of its own). A
// file of no kind gets the kernel harness, whose preparation refuses it naming the endings
// (the submission's failure, as a build's).
std::unique_ptr<Harness> harness_for(const HarnessOptions& o);

// The project's own kernel, called in this process (no box): its entry points.
std::unique_ptr<Harness> builtin_harness(rope2d_backward_fn backward, rope2d_backward_fused_fn fused);

// Each host's harness, for the registry (kernel_harness.cpp, python_harness.cpp).
std::unique_ptr<Harness> kernel_harness(const SubmissionKind* kind, const HarnessOptions& o);
std::unique_ptr<Harness> python_harness(const SubmissionKind& kind, const HarnessOptions& o);

// A caller's own function as the submission (the C API's rope2d_verify, under rope2d.verify's
// Python callable), of kind "caller", called in the caller's process (no box): the report's
// title, header lines and warnings as the caller words them, and the call on each round's host
// inputs (its output, or why there is none, and its integrity findings).
struct Caller {
  std::string title;
  std::vector<HeaderLine> header;
  std::vector<std::string> warnings;
  std::function<CallResult(const Problem&, int round)> call;
};
std::unique_ptr<Harness> caller_harness(Caller c);  // caller_harness.cpp

}  // namespace rope2d::verify::harness
