// The harness of a SOL-ExecBench solution (harness.hpp): its sources written out and copied
// into the box, where the Python host (python3 -m rope2d.runner) serves the testbed's calls on
// the judge's own device memory (harness/testbed/served_solution.hpp). Without a GPU its
// sources are compiled to bytecode in the box.
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "codec/plain_text.hpp"
#include "harness/harness.hpp"
#include "harness/solution.hpp"
#include "harness/submission.hpp"
#include "rope2d/verify/judge/suites.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "harness/remote_kernel.hpp"
#include "harness/testbed/device.hpp"
#include "harness/testbed/served_solution.hpp"
#endif

namespace rope2d::verify::harness {

namespace {

using nlohmann::json;

// What serves the calls once prepared: the Python host in the box, the testbed, its calls.
#ifdef ROPE2D_HAVE_CUDA
struct PythonServed {
  std::unique_ptr<RemoteKernel> host;
  std::unique_ptr<Testbed> bed;
  std::unique_ptr<ServedSolution> calls;
};
#else
struct PythonServed {};  // a build without CUDA serves no call (its worker finds no GPU first)
#endif

class PythonHarness final : public Harness {
 public:
  PythonHarness(const SubmissionKind& kind, HarnessOptions o)
      : kind_(kind), o_(std::move(o)), served_(std::make_unique<PythonServed>()) {}

  std::string_view kind() const override { return kind_.name; }

  // Its sources written out (malformed: invalid_argument), copied into the box, and its host
  // started there; a host that did not start serves no call (unserved).
  std::optional<Unprepared> prepare() override {
    sol_ = prepare_solution(o_.submission, o_.out_dir + "/solution", o_.folder.get());
    scope_ = o_.definition ? *o_.definition : definition_scope(sol_);
    scratch_ = std::make_unique<Scratch>();
    // The Python's own folder (a venv under home, say) shown read-only where it lies under a
    // hidden folder (reveal_program).
    box_ = o_.box(scratch_->path(), true);
    reveal_program(box_, o_.python);
    box_.limits.cpu_s = 7 * 86400;  // the host lives as long as the run; its waits spin on the CPU
    const std::string dir = (std::filesystem::path(scratch_->path()) / "solution").string();
    std::filesystem::copy(sol_.dir, dir, std::filesystem::copy_options::recursive);
    give_to_box(dir);
    start_host(dir);
    return std::nullopt;
  }

  // What it is, the machine, its definition, how it is run.
  void header(Report& rep, const std::vector<HeaderLine>& machine) const override {
    rep.title = "rope2d verify: " + o_.submission;
    rep.header = {{"submission", o_.submission},
                  {"kind", std::string(kind_.name) + " (" + sol_.entry_point + ", " +
                               (sol_.destination_passing ? "destination-passing" : "returns its output") + ")"},
                  {"sha256", sol_.sha256}};
    rep.header.insert(rep.header.end(), machine.begin(), machine.end());
    rep.warnings.push_back("called by the Python host (rope2d.runner.host_serve) on the verifier's own device memory, "
                           "under the call contract of docs/python-solutions.md: each problem's calls on the testbed "
                           "(outputs pre-filled, guard bands, inputs, a call behind a busy stream, a repeat call bit for bit), "
                           "the host's words on errors, the stream and device it left, threads, torch attributes and memory held");
    rep.warnings.insert(rep.warnings.end(), sol_.warnings.begin(), sol_.warnings.end());
    if (scope_.grad_dtypes.empty())
      rep.warnings.push_back("definition " + sol_.definition + " is not known here (no definition.json of that name beside the "
                             "solution): judged over every grad dtype asked for");
    else
      rep.header.push_back({"definition", sol_.definition + " (grad dtypes " + grad_dtype_list(scope_.grad_dtypes, ", ") +
                                              (scope_.head_dim ? ", head_dim " + std::to_string(scope_.head_dim) : "") +
                                              "; other dtypes and shapes asked for are judged beyond the definition, outside the verdict)"});
    if (sol_.cpp) rep.header.push_back({"compile_options", sol_.compile_options.dump() + " (built through the torch binding)"});
    rep.header.push_back({"confinement", describe(box_)});
    rep.header.push_back({"time limits", seconds(host_start_timeout_s()) +
                                             " for the Python host's start (a cuda_cpp build and the import: --build-timeout + "
                                             "--load-timeout), " + seconds(o_.call_timeout_s) +
                                             " for each call (--call-timeout); past either, the host and its box are killed"});
  }

  std::optional<Unprepared> unserved() override;

  // Its host's calls judged on the CPU, a set ending at its first failed call; the sets' end
  // events once the host has ended.
  Judging judging(bool) const override { return {.stop_set_on_error = true, .ends_after_host = true}; }

  std::vector<Entry> entries(Tier gate, Subnormals subnormals, bool device_inputs) override;

  // The host's words on its start and the time per set, among the warnings.
  void judged(Report& rep, const Phases&, bool) override;

  void end(Report& rep) override;

  // Without a GPU: its sources compiled to bytecode, in the box as a build is (its own folder
  // may hold modules a Python would import from there): a source that does not compile is the
  // submission's failure.
  std::optional<Unprepared> cpu_checks(Report& rep, const Say& say) override {
    const Solution s = prepare_solution(o_.submission, o_.out_dir + "/solution", o_.folder.get());
    const Scratch scratch;
    BoxPolicy box = o_.box(scratch.path(), false);
    reveal_program(box, o_.python);
    const std::string confinement = describe(box);  // its hidden folders looked up once
    say("confinement: " + confinement);
    rep.header.push_back({"confinement", confinement});
    Refusals refused;
    rep.header.push_back({"time limits", seconds(o_.build_timeout_s) + " to byte-compile its sources (--build-timeout; killed past it)"});
    const ByteCompile b = byte_compile_in_box(s, o_.python, box, o_.build_timeout_s, &refused);
    if (box.confine && b.ran) {  // a box that never started refused nothing worth a line
      say("refused by the box: " + refused.words());
      rep.header.push_back({"refused by the box", refused.words()});
    }
    if (b.ran && !b.error.empty()) {
      say("FAILED to byte-compile its Python sources: " + plain_text(b.error, "    "));
      return Unprepared{"its Python sources do not byte-compile: " + b.error, Cause::build};
    }
    if (b.ran) say(std::to_string(b.files) + " Python source(s) byte-compiled");
    else if (b.files) say("byte-compile SKIPPED (" + plain_text(b.error, "    ") + ")");
    if (s.cpp) {
      // Its C++/CUDA sources are built by torch's cpp_extension in the Python host, which is
      // started only where a GPU is: not built here, and said so.
      const std::string skipped = "SKIPPED: its C++/CUDA sources are built through torch's cpp_extension by the Python host, "
                                  "which runs only where a GPU is (nothing was compiled)";
      say("build " + skipped);
      rep.header.push_back({"build", skipped});
    }
    return std::nullopt;
  }

 private:
  void start_host(const std::string& dir);
  // The host's start holds the build of its C++ sources and the solution's import.
  double host_start_timeout_s() const { return o_.build_timeout_s + o_.load_timeout_s; }

  SubmissionKind kind_;  // a copy: the registry may grow while this lives
  HarnessOptions o_;
  Solution sol_;
  DefinitionScope scope_;
  std::unique_ptr<Scratch> scratch_;  // the box's scratch folder, as long as the host lives
  BoxPolicy box_;
  std::unique_ptr<PythonServed> served_;
};

#ifdef ROPE2D_HAVE_CUDA

// The Python host (the relay and rope2d.runner) in the box, on the sources copied to `dir`.
void PythonHarness::start_host(const std::string& dir) {
  std::vector<std::string> command = o_.python_runner;
  command.insert(command.end(), {dir, sol_.entry_point, sol_.destination_passing ? "1" : "0", scratch_->path(),
                                 json{{"cpp", sol_.cpp}, {"compile_options", sol_.compile_options}}.dump()});
  const RemoteOptions o{.command = command,
                        .name = "Python host",
                        .processes = 2,  // the relay and the host (rope2d.runner)
                        .box = box_,
                        .start_timeout_s = host_start_timeout_s(),  // the import, or a C++ solution's build
                        .start_option = "--build-timeout + --load-timeout",
                        .call_timeout_s = o_.call_timeout_s};
  served_->host = std::make_unique<RemoteKernel>(o);
  served_->calls = std::make_unique<ServedSolution>(*served_->host, scope_.head_dim);
}

std::optional<Unprepared> PythonHarness::unserved() {
  Cause cause = Cause::runtime;
  const std::string why = served_->calls->unserved(served_->host->ready() ? "" : served_->host->error(), &cause);
  if (why.empty()) return std::nullopt;
  return Unprepared{why, cause};
}

std::vector<Entry> PythonHarness::entries(Tier, Subnormals, bool) {
  served_->bed = std::make_unique<Testbed>();
  return {served_->calls->entry(*served_->bed)};
}

void PythonHarness::judged(Report& rep, const Phases&, bool) {
  const std::vector<std::string> notes = served_->calls->notes();
  rep.warnings.insert(rep.warnings.end(), notes.begin(), notes.end());
}

// The host's end: its exit, what the box refused, the processes it left.
void PythonHarness::end(Report& rep) {
  const RemoteKernel::End e = served_->host->finish();
  rep.header.push_back({"Python host", e.result.exit_text() + ", " + std::to_string(e.result.output_bytes) + " bytes of output"});
  if (box_.confine) rep.header.push_back({"refused by the box", e.result.refused.words()});
  if (e.left_running > 0)
    rep.warnings.push_back("the solution left " + std::to_string(e.left_running) +
                           " process(es) running in its box at the end: all ended with the box");
}

#else

void PythonHarness::start_host(const std::string&) {}
std::optional<Unprepared> PythonHarness::unserved() { return Unprepared{"this build has no CUDA: no Python host serves calls"}; }
std::vector<Entry> PythonHarness::entries(Tier, Subnormals, bool) { return {}; }
void PythonHarness::judged(Report&, const Phases&, bool) {}
void PythonHarness::end(Report&) {}

#endif

}  // namespace

std::unique_ptr<Harness> python_harness(const SubmissionKind& kind, const HarnessOptions& o) {
  return std::make_unique<PythonHarness>(kind, o);
}

}  // namespace rope2d::verify::harness
