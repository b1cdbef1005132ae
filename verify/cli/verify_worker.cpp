// The worker half of `rope2d verify`: the submission's harness (harness/harness.hpp: the
// project's kernel, a C ABI submission or a SOL-ExecBench solution) judged by verify()
// (products/verify/verify.hpp), which writes the report; the worker is its observer, telling
// the supervising parent where it is as it goes (worker_protocol.hpp).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "verify_worker.hpp"
#include "harness/kinds.hpp"
#include "harness/solution.hpp"
#include "harness/submission.hpp"
#include "products/verify/verify.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/verify/products/report_files.hpp"

extern char** environ;

namespace rope2d::cli {

using namespace rope2d::verify;
namespace proto = rope2d::verify::protocol;

bool is_solution(const std::string& path) {
  const harness::SubmissionKind* k = harness::kind_of(path);
  return k && k->host == harness::Host::python;
}

harness::BoxPolicy submission_box(const VerifyArgs& a, const std::string& scratch, bool gpu) {
  namespace fs = std::filesystem;
  harness::BoxPolicy p;
  p.confine = !a.no_sandbox;
  p.gpu = gpu;
  p.scratch = scratch;
  p.env = harness::box_environment(scratch);
  if (!p.confine) {  // unconfined: the caller's whole environment (compute-sanitizer's injection included)
    p.env.clear();
    for (char** e = environ; *e; ++e) p.env.emplace_back(*e);
  }
  std::error_code ec;
  // The report folder made now, so that it is there to hide (the report writers make it too).
  if (!a.out_dir.empty() && !fs::exists(fs::symlink_status(a.out_dir, ec))) fs::create_directories(a.out_dir, ec);
  // Besides the report folder, home and the golden data: the working folder (a checkout, whose
  // files a CI job's token may be among) and the submission's own folder (what it needs of it
  // is copied into its scratch folder); folders the box needs are never hidden (harness::hideable).
  const std::string submission_folder = a.run.submission.empty() ? "" : fs::absolute(a.run.submission, ec).parent_path().string();
  for (const std::string& h : {a.out_dir, a.golden, std::string(std::getenv("HOME") ? std::getenv("HOME") : ""),
                               fs::current_path(ec).string(), submission_folder,
                               // The system's daemons' socket files (the journal's, D-Bus's, a user's bus): no
                               // mount stops a connect() to one, and the CUDA driver needs Unix sockets itself.
                               std::string("/run")})
    if (!h.empty()) p.hide.push_back(fs::absolute(h, ec).string());
  for (const std::string& h : a.hide) p.hide.push_back(fs::absolute(h, ec).string());
  // What the box needs where it may lie under a hidden folder: the Python package, whose runner
  // the box runs (the kernel host and the ABI header are copied into the scratch folder), nvcc's
  // prefix and the library path's folders (a Python's prefix: the Python harness).
  p.reveal.push_back(repo_file("python/rope2d"));
  harness::reveal_program(p, a.run.nvcc);
  harness::reveal_library_path(p);
  // The folders a build flag names (an include folder under the working folder, say).
  for (const std::string& f : a.run.nvcc_flags)
    for (const std::string_view flag : {"-I", "-isystem", "-idirafter", "-L", "--include-path=", "--library-path="})
      if (f.rfind(flag, 0) == 0) {
        harness::reveal_folder(p, f.substr(flag.size()));
        break;
      }
  p.limits.wall_s = 0;  // each use sets its own
  if (p.confine) p.watcher = kernel_host_program(scratch);  // counts what the box refuses (harness/watch.hpp)
  return p;
}

harness::HarnessOptions harness_options(const VerifyArgs& a) {
  return {.submission = a.run.submission,
          .box = [&a](const std::string& scratch, bool gpu) { return submission_box(a, scratch, gpu); },
          .nvcc = a.run.nvcc,
          .nvcc_flags = a.run.nvcc_flags,
          .include_dir = repo_file("cuda/include"),
          .out_dir = a.out_dir,
          .python = "python3",
          .python_runner = python_module_command("python3", "rope2d.runner"),
          .build_timeout_s = a.build_timeout,
          .load_timeout_s = a.load_timeout,
          .call_timeout_s = a.call_timeout,
          .definition = is_solution(a.run.submission)
                            ? std::optional<DefinitionScope>(DefinitionScope{a.definition_dtypes, a.definition_head_dim})
                            : std::nullopt,
          .folder = a.submission_folder};
}

std::unique_ptr<harness::Harness> submission_harness(const VerifyArgs& a) {
  if (!a.run.submission.empty()) return harness::harness_for(harness_options(a));
#ifdef ROPE2D_HAVE_CUDA
  return harness::builtin_harness(&rope2d_backward, &rope2d_backward_fused);
#else
  return harness::builtin_harness(nullptr, nullptr);  // its checks without a GPU need no entry point
#endif
}

namespace {

#ifdef ROPE2D_HAVE_CUDA
// The worker as verify()'s observer: each step forwarded to the parent as its message; at the
// end the summary (of a judged run) on the terminal.
class Forward final : public Observer {
 public:
  Forward(int fd, Tier gate) : fd_(fd), gate_(gate) {}
  void device(const std::string& name) override { proto::send(fd_, proto::Device{name}); }
  void start(const std::string& name, std::size_t index, std::size_t count) override {
    proto::send(fd_, proto::Start{name, index, count});
  }
  void call(const std::string& name) override { proto::send(fd_, proto::Call{name}); }
  void called() override { proto::send(fd_, proto::Called{}); }
  void end(const SetResult& r) override {
    proto::send(fd_, proto::End{r.name, r.set, r.dtype, r.disposition(gate_), outcome(r, gate_), r.cause(gate_), r.shape});
  }
  void done(const Report& rep, bool judged) override {
    if (judged) std::cout << summary(rep);
    proto::send(fd_, proto::Done{rep.verdict()});
  }

 private:
  int fd_;
  Tier gate_;
};
#endif

}  // namespace

int verify_worker(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, int fd) {
#ifndef ROPE2D_HAVE_CUDA
  (void)a, (void)specs;
  proto::send(fd, proto::NoGpu{"this build has no CUDA (nvcc was not found when it was configured)"});
  return 0;
#else
  const DeviceInfo dev = probe_device();
  if (!dev.available) {
    proto::send(fd, proto::NoGpu{dev.reason});
    return 0;
  }
  const Plan plan{.specs = specs,
                  .run = a.run,
                  .device = dev,
                  .device_inputs = !a.cpu_judge,
                  .contract = a.only.empty(),
                  .huge = a.huge,
                  .bench = a.bench,
                  .definition_dtypes = a.definition_dtypes,
                  .definition_head_dim = a.definition_head_dim,
                  .out_dir = a.out_dir,
                  .checks = &c_abi_checks()};
  const std::unique_ptr<harness::Harness> h = submission_harness(a);
  Forward observer(fd, a.run.tier);
  verify::verify(plan, *h, observer);
  return 0;
#endif
}

}  // namespace rope2d::cli
