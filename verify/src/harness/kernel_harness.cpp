// The harness of a C ABI kernel (harness.hpp): a CUDA source built by nvcc in the box or a
// shared object copied there, served by the kernel host in the box (remote_kernel.hpp); or the
// project's own kernel, called in this process. Its entries are the testbed's (plain, and fused
// for the layout sets); its entry point serves the call contract, --huge and the benchmark.
#include <fmt/format.h>

#include <filesystem>

#include "codec/plain_text.hpp"
#include "harness/harness.hpp"
#include "harness/spawn.hpp"
#include "harness/submission.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "harness/remote_kernel.hpp"
#include "harness/testbed/device_judge.hpp"
#endif

namespace rope2d::verify::harness {

namespace {

namespace fs = std::filesystem;

// What serves the calls once prepared: the kernel host in the box, and the testbed.
#ifdef ROPE2D_HAVE_CUDA
struct KernelServed {
  std::unique_ptr<RemoteKernel> remote;
  std::unique_ptr<Testbed> bed;
};
#else
struct KernelServed {};  // a build without CUDA serves no call (its worker finds no GPU first)
#endif

// The report's time line: what ran where, and what overlapped.
std::string time_line(const Phases& t, bool device_inputs) {
  std::string s = fmt::format("CPU (one round ahead, during the calls): inputs {:.1f} s, reference {:.1f} s; "
                              "GPU calls and integrity checks {:.1f} s{}; CPU comparison {:.1f} s ({} set rounds)",
                              t.inputs, t.reference, t.gpu, device_inputs ? " (randn and layout inputs made on the GPU in it)" : "",
                              t.compare, t.cpu_sets);
  if (device_inputs)
    s += fmt::format("; GPU reference and comparison {:.1f} s ({} set rounds), CPU settling of the elements handed back "
                     "{:.1f} s ({} set rounds judged whole on the CPU: more failures or handed-back elements than the GPU "
                     "pass keeps), sample cross-check against the CPU {:.1f} s",
                     t.gpu_check, t.gpu_sets, t.settle, t.whole_on_cpu, t.cross_check);
  return s;
}

class KernelHarness final : public Harness {
 public:
  // No submission: the project's kernel, `backward` and `fused` in this process. kind null: a
  // file of no kind, which its preparation refuses, naming the endings.
  KernelHarness(const SubmissionKind* kind, HarnessOptions o, rope2d_backward_fn backward = nullptr,
                rope2d_backward_fused_fn fused = nullptr)
      : kind_(kind ? std::optional<SubmissionKind>(*kind) : std::nullopt),
        o_(std::move(o)),
        served_(std::make_unique<KernelServed>()) {
    sub_.backward = backward;
    sub_.fused = fused;
  }

  std::string_view kind() const override { return kind_ ? kind_->name : builtin() ? "builtin" : ""; }

  std::optional<Unprepared> prepare() override {
    if (builtin()) {
      sub_.kind = "builtin";
      sub_.path = "rope2d (this project's kernel)";
      return std::nullopt;
    }
    scratch_ = std::make_unique<Scratch>();
    box_ = o_.box(scratch_->path(), true);
    sub_ = prepare_submission(o_.submission, build_options(box_));  // the build: the box's default CPU time
    box_.limits.cpu_s = 7 * 86400;  // the kernel host lives as long as the run; its waits spin on the CPU
    if (sub_.error.empty()) start_host();
    if (!sub_.error.empty()) return Unprepared{sub_.error, sub_.error_cause};
    return std::nullopt;
  }

  // What it is, the machine, its box.
  void header(Report& rep, const std::vector<HeaderLine>& machine) const override {
    rep.title = "rope2d verify: " + sub_.path;
    rep.header = {{"submission", sub_.path}, {"kind", sub_.kind}};
    if (!sub_.sha256.empty()) rep.header.push_back({"sha256", sub_.sha256});
    if (!sub_.compile_command.empty()) rep.header.push_back({"compile", sub_.compile_command});
    rep.header.insert(rep.header.end(), machine.begin(), machine.end());
    rep.warnings = sub_.warnings;
    if (builtin()) return;
    rep.header.push_back({"confinement", describe(box_)});
    rep.header.push_back({"time limits", build_limit() + seconds(o_.load_timeout_s) + " for the kernel host's start (--load-timeout), " +
                                             seconds(o_.call_timeout_s) + " for each call (--call-timeout); killed past its limit"});
  }

  Judging judging(bool device_inputs) const override { return {.device_inputs = device_inputs}; }

  std::vector<Entry> entries(Tier gate, Subnormals subnormals, bool device_inputs) override;
  std::optional<CAbi> c_abi() override;

  void judged(Report& rep, const Phases& t, bool device_inputs) override {
    // Each case's inputs and reference are made one round ahead, in the background, so those
    // two phases overlap the calls and comparisons of the round before.
    rep.header.push_back({"time", time_line(t, device_inputs)});
  }

  void end(Report& rep) override;
  std::optional<Unprepared> cpu_checks(Report& rep, const Say& say) override;

 private:
  BuildOptions build_options(const BoxPolicy& box) const {
    return {.nvcc = o_.nvcc, .nvcc_flags = o_.nvcc_flags, .include_dir = o_.include_dir, .build_dir = o_.out_dir + "/build",
            .box = box, .timeout_s = o_.build_timeout_s, .folder = o_.folder};
  }
  void start_host();
  bool builtin() const { return o_.submission.empty(); }
  // The build's limit where there is a build, in words.
  std::string build_limit() const {
    const bool source = kind_ && kind_->preparation == Preparation::nvcc_build;
    return source ? seconds(o_.build_timeout_s) + " for the build (--build-timeout), " : std::string();
  }

  std::optional<SubmissionKind> kind_;  // a copy: the registry may grow while this lives
  HarnessOptions o_;
  Submission sub_;
  std::unique_ptr<Scratch> scratch_;  // the box's scratch folder, as long as the host lives
  BoxPolicy box_;
  std::unique_ptr<KernelServed> served_;
};

// Without a GPU: built with nvcc where present, loaded in the box (never in this process), its
// symbol looked up.
std::optional<Unprepared> KernelHarness::cpu_checks(Report& rep, const Say& say) {
  if (builtin()) return std::nullopt;
  const bool source = kind_ && kind_->preparation == Preparation::nvcc_build;
  const bool have_nvcc =
      !source || (o_.nvcc.find('/') != std::string::npos ? fs::exists(o_.nvcc) : !find_program(o_.nvcc).empty());
  if (!have_nvcc) {
    say("build SKIPPED (no " + o_.nvcc + ")");
    rep.warnings.push_back("the submission was not built: no " + o_.nvcc);
    return std::nullopt;
  }
  const Scratch scratch;
  const BoxPolicy box = o_.box(scratch.path(), false);
  const std::string confinement = describe(box);  // its hidden folders looked up once
  say("confinement: " + confinement);
  rep.header.push_back({"confinement", confinement});
  rep.header.push_back({"time limits", build_limit() + seconds(o_.load_timeout_s) + " for the load check (--load-timeout); killed past its limit"});
  Submission sub = prepare_submission(o_.submission, build_options(box));
  if (sub.error.empty()) sub.error = probe_submission(sub, kernel_host_program(scratch.path()), box, o_.load_timeout_s);
  if (box.confine) say("refused by the box: " + sub.refused.words());
  if (!sub.compile_command.empty()) rep.header.push_back({"compile", sub.compile_command});
  for (const std::string& w : sub.warnings) say("warning: " + w);
  rep.warnings.insert(rep.warnings.end(), sub.warnings.begin(), sub.warnings.end());
  if (box.confine) rep.header.push_back({"refused by the box", sub.refused.words()});
  if (!sub.error.empty()) {
    // What the submission's build and load check printed: text, its later lines indented.
    say("FAILED to " + std::string(source ? "build or load" : "load") + ": " + plain_text(sub.error.substr(0, 4000), "    "));
    rep.warnings.push_back("the submission could not be " + std::string(sub.error_cause == Cause::runtime ? "loaded" : "built") +
                           ": " + sub.error);
    return Unprepared{sub.error, sub.error_cause};
  }
  // Found: the box's load check and the judge's reading of the file's dynamic symbol table agree.
  const std::string found = std::string(source ? "compiled, " : "") + "loaded in the box, " + sub.symbol + " found";
  say(found + " (by the box's word and in the file's symbol table: no kernel ran)");
  rep.header.push_back({"build", found});
  return std::nullopt;
}

#ifdef ROPE2D_HAVE_CUDA

// The kernel host in the box, serving the built library's entry points.
void KernelHarness::start_host() {
  RemoteOptions r{.host_program = kernel_host_program(scratch_->path()), .library = sub_.library, .symbol = sub_.symbol,
                  .fused_symbol = sub_.fused_symbol, .box = box_, .start_timeout_s = o_.load_timeout_s,
                  .call_timeout_s = o_.call_timeout_s};
  served_->remote = std::make_unique<RemoteKernel>(r);
  if (!served_->remote->ready()) {
    sub_.error = served_->remote->error();
    sub_.refused.add(served_->remote->finish().result.refused);  // what its start tried, counted too
    return;
  }
  sub_.backward = &RemoteKernel::backward;
  sub_.fused = served_->remote->has_fused() ? &RemoteKernel::fused : nullptr;
}

std::vector<Entry> KernelHarness::entries(Tier gate, Subnormals subnormals, bool device_inputs) {
  served_->bed = std::make_unique<Testbed>();
  // The randn and layout sets (counter-based, the bulk of every run) made and judged on the
  // GPU where asked; the others (and those handed back) on the CPU.
  std::optional<DeviceJudging> gpu;
  if (device_inputs) gpu = DeviceJudging{.gate = gate, .subnormals = subnormals};
  std::vector<Entry> entries{plain_entry(*served_->bed, sub_.backward, gpu)};
  if (sub_.fused) entries.push_back(fused_entry(*served_->bed, sub_.fused, gpu));
  return entries;
}

std::optional<CAbi> KernelHarness::c_abi() { return CAbi{sub_.backward, served_->bed.get()}; }

// The kernel host's end: the report's words on what the box held and what was left running;
// after a failed prepare, what the box refused its build and load.
void KernelHarness::end(Report& rep) {
  if (!sub_.error.empty()) {
    if (!builtin() && box_.confine) rep.header.push_back({"refused by the box", sub_.refused.words()});
    return;
  }
  if (!served_->remote) return;
  const RemoteKernel::End e = served_->remote->finish();
  rep.header.push_back({"kernel host", e.result.exit_text() + ", " + std::to_string(e.result.output_bytes) + " bytes of output"});
  Refusals refused = sub_.refused;
  refused.add(e.result.refused);
  if (box_.confine) rep.header.push_back({"refused by the box", refused.words()});
  if (e.left_running > 0)
    rep.warnings.push_back("the submission left " + std::to_string(e.left_running) +
                           " process(es) running in its box at the end: all ended with the box");
}

#else

void KernelHarness::start_host() { sub_.error = "this build has no CUDA: no kernel host serves calls"; }
std::vector<Entry> KernelHarness::entries(Tier, Subnormals, bool) { return {}; }
std::optional<CAbi> KernelHarness::c_abi() { return std::nullopt; }
void KernelHarness::end(Report& rep) {
  if (!sub_.error.empty() && !builtin() && box_.confine) rep.header.push_back({"refused by the box", sub_.refused.words()});
}

#endif

}  // namespace

std::unique_ptr<Harness> kernel_harness(const SubmissionKind* kind, const HarnessOptions& o) {
  return std::make_unique<KernelHarness>(kind, o);
}

std::unique_ptr<Harness> builtin_harness(rope2d_backward_fn backward, rope2d_backward_fused_fn fused) {
  return std::make_unique<KernelHarness>(nullptr, HarnessOptions{}, backward, fused);
}

}  // namespace rope2d::verify::harness
