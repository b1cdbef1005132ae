// The worker half of `rope2d verify`: loads the submission (or the project's kernel, or a
// SOL-ExecBench solution), judges every problem through the GPU testbed and writes the report,
// telling the supervising parent where it is as it goes (worker_protocol.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "verify_worker.hpp"
#include "harness/testbed/contract.hpp"
#include "harness/testbed/huge.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "harness/solution.hpp"
#include "harness/kinds.hpp"
#include "harness/submission.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
#include "products/bench/bench.hpp"
#include "harness/testbed/device_judge.hpp"
#include "harness/remote_kernel.hpp"
#include "harness/testbed/served_solution.hpp"
#include "rope2d/verify/judge/worst.hpp"
#endif

extern char** environ;

namespace rope2d::cli {

using namespace rope2d::verify;
namespace proto = rope2d::verify::protocol;
using nlohmann::json;

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
  for (const std::string& h : {a.out_dir, a.golden, std::string(std::getenv("HOME") ? std::getenv("HOME") : "")})
    if (!h.empty()) p.hide.push_back(fs::absolute(h, ec).string());
  // What the box needs where it may lie under a hidden folder: the Python package, whose runner
  // the box runs (the kernel host and the ABI header are copied into the scratch folder).
  p.reveal.push_back(repo_file("python/rope2d"));
  p.limits.wall_s = 0;  // each use sets its own
  if (p.confine) p.watcher = kernel_host_program(scratch);  // counts what the box refuses (harness/watch.hpp)
  return p;
}

namespace {

#ifdef ROPE2D_HAVE_CUDA
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

void send_end(int fd, const SetResult& r, Tier gate) {
  proto::send(fd, proto::End{r.name, r.set, r.dtype, r.disposition(gate), outcome(r, gate), r.cause(gate), r.shape});
}

std::vector<std::pair<std::string, std::string>> machine_lines(const DeviceInfo& dev, const VerifyArgs& a) {
  return {{"gpu", fmt::format("{} ({} SMs, {:.0f} GiB)", dev.name, dev.sm_count, dev.memory_gib)},
          {"driver / runtime", fmt::format("{} / {}", dev.driver_version, dev.runtime_version)},
          {"reference", "correctly rounded float32: certified double enclosure, MPFR (Ziv) fallback"},
          {"seeds", fmt::format("base {}, {} rounds of fresh inputs per set", a.run.seed, a.run.rounds)},
          {"subnormals", a.run.ieee_subnormals ? "IEEE demanded (--ieee-subnormals)"
                                           : "flushing to zero accepted (--ieee-subnormals demands IEEE)"}};
}

void finish(int fd, const VerifyArgs& a, const Report& rep) {
  write_report(a.out_dir, rep);
  std::cout << summary(rep);
  proto::send(fd, proto::Done{rep.verdict()});
}

// The report's header for a solution: what it is, the machine, its definition, how it is run.
Report solution_report(const VerifyArgs& a, const Solution& sol, Tier gate, const DeviceInfo& dev) {
  Report rep;
  rep.gate = gate;
  rep.title = "rope2d verify: " + a.run.submission;
  rep.header = {{"submission", a.run.submission},
                {"kind", "sol-execbench solution (" + sol.entry_point + ", " +
                             (sol.destination_passing ? "destination-passing" : "returns its output") + ")"},
                {"sha256", sol.sha256}};
  for (const auto& line : machine_lines(dev, a)) rep.header.push_back(line);
  rep.warnings.push_back("called by the Python host (rope2d.runner.host_serve) on the verifier's own device memory, "
                         "under the call contract of docs/python-solutions.md: each problem's calls on the testbed "
                         "(outputs pre-filled, guard bands, inputs, a call behind a busy stream, a repeat call bit for bit), "
                         "the host's words on errors, the stream and device it left, threads, torch attributes and memory held");
  rep.warnings.insert(rep.warnings.end(), sol.warnings.begin(), sol.warnings.end());
  if (a.definition_dtypes.empty())
    rep.warnings.push_back("definition " + sol.definition + " is not known here (no definition.json of that name beside the "
                           "solution): judged over every grad dtype asked for");
  else
    rep.header.push_back({"definition", sol.definition + " (grad dtypes " + fmt::format("{}", fmt::join(a.definition_dtypes, ", ")) +
                                            (a.definition_head_dim ? ", head_dim " + std::to_string(a.definition_head_dim) : "") +
                                            "; other dtypes and shapes asked for are judged beyond the definition, outside the verdict)"});
  if (sol.cpp) rep.header.push_back({"compile_options", sol.compile_options + " (built through the torch binding)"});
  return rep;
}

// The box of a solution's host: the Python's own folder (a venv under home, say) shown
// read-only where it lies under a hidden folder (harness::reveal_program).
harness::BoxPolicy solution_box(const VerifyArgs& a, const std::string& scratch, const std::string& python) {
  harness::BoxPolicy box = submission_box(a, scratch, true);
  harness::reveal_program(box, python);
  box.limits.cpu_s = 7 * 86400;  // the host lives as long as the run; its waits spin on the CPU
  return box;
}

// A SOL-ExecBench solution: the Python host, in the box, serves the testbed's calls on the
// judge's own device memory (verify/src/harness/testbed/served_solution.hpp).
int verify_solution(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, Tier gate, int fd, const DeviceInfo& dev) {
  const Solution sol = prepare_solution(a.run.submission, a.out_dir + "/solution");
  Report rep = solution_report(a, sol, gate, dev);
  proto::send(fd, proto::Device{dev.name});
  const std::string python = "python3";
  harness::Scratch scratch;
  const harness::BoxPolicy box = solution_box(a, scratch.path(), python);
  const std::string dir = (std::filesystem::path(scratch.path()) / "solution").string();
  std::filesystem::copy(sol.dir, dir, std::filesystem::copy_options::recursive);
  harness::give_to_box(dir);
  rep.header.push_back({"confinement", harness::describe(box)});
  std::vector<std::string> command = python_module_command(python, "rope2d.runner");
  command.insert(command.end(), {dir, sol.entry_point, sol.destination_passing ? "1" : "0", scratch.path(),
                                 json{{"cpp", sol.cpp}, {"compile_options", json::parse(sol.compile_options)}}.dump()});
  const harness::RemoteOptions o{
      .command = command,
      .name = "Python host",
      .processes = 2,  // the relay and the host (rope2d.runner)
      .box = box,
      .start_timeout_s = a.build_timeout + 120,  // the import, or a C++ solution's build
      .call_timeout_s = a.call_timeout};
  harness::RemoteKernel host(o);
  Testbed bed;
  ServedRun run{.gate = gate, .rounds = a.run.rounds, .worst_dir = a.run.worst_dir, .head_dim = a.definition_head_dim};
  if (a.run.ieee_subnormals) run.subnormals = Subnormals::ieee;
  run.on_call = [fd](const std::string& name) { proto::send(fd, proto::Call{name}); };
  run.on_called = [fd] { proto::send(fd, proto::Called{}); };
  std::vector<std::string> notes;
  run.notes = &notes;
  std::set<std::string> beyond;
  for (const ProblemSpec& s : specs)
    if (!within_definition(s, a.definition_dtypes, a.definition_head_dim)) beyond.insert(s.name());
  run.on_set = [&](std::size_t k) { proto::send(fd, proto::Start{specs[k].name(), k, specs.size()}); };
  rep.results = judge_served_solution(bed, host, host.ready() ? "" : host.error(), specs, run);
  rep.warnings.insert(rep.warnings.end(), notes.begin(), notes.end());
  const harness::RemoteKernel::End e = host.finish();
  rep.header.push_back({"Python host", e.result.exit_text() + ", " + std::to_string(e.result.output_bytes) + " bytes of output"});
  if (box.confine) rep.header.push_back({"refused by the box", e.result.refused.words()});
  if (e.left_running > 0)
    rep.warnings.push_back("the solution left " + std::to_string(e.left_running) +
                           " process(es) running in its box at the end: all ended with the box");
  const RunOptions opts = a.run;
  for (SetResult& r : rep.results) {
    r.reproduce = reproduce_line(opts, r.name);
    r.beyond_definition = beyond.count(r.name) > 0;
    send_end(fd, r, gate);
  }
  finish(fd, a, rep);
  return 0;
}

// A submission made ready: the project's kernel in this process, or a submission built in the
// box and served by the kernel host there (harness/remote_kernel.hpp), whose scratch folder and
// host live as long as this.
struct Opened {
  Submission sub;
  std::unique_ptr<harness::Scratch> scratch;
  harness::BoxPolicy box;
  std::unique_ptr<harness::RemoteKernel> remote;
};

Opened open_submission(const VerifyArgs& a) {
  Opened o;
  Submission& sub = o.sub;
  if (a.run.submission.empty()) {
    sub.kind = "builtin";
    sub.path = "rope2d (this project's kernel)";
    sub.backward = &rope2d_backward;
    sub.fused = &rope2d_backward_fused;
    return o;
  }
  o.scratch = std::make_unique<harness::Scratch>();
  o.box = submission_box(a, o.scratch->path(), true);
  o.box.limits.cpu_s = 7 * 86400;  // the kernel host lives as long as the run; its waits spin on the CPU
  BuildOptions b{.nvcc = a.run.nvcc, .nvcc_flags = a.run.nvcc_flags, .include_dir = repo_file("cuda/include"),
                 .build_dir = a.out_dir + "/build", .box = o.box, .timeout_s = a.build_timeout};
  sub = prepare_submission(a.run.submission, b);
  if (!sub.error.empty()) return o;
  harness::RemoteOptions r{.host_program = kernel_host_program(o.scratch->path()), .library = sub.library, .symbol = sub.symbol,
                           .fused_symbol = sub.fused_symbol, .box = o.box, .call_timeout_s = a.call_timeout};
  o.remote = std::make_unique<harness::RemoteKernel>(r);
  if (!o.remote->ready()) {
    sub.error = o.remote->error();
    sub.refused.add(o.remote->finish().result.refused);  // what its start tried, counted too
    return o;
  }
  sub.backward = &harness::RemoteKernel::backward;
  sub.fused = o.remote->has_fused() ? &harness::RemoteKernel::fused : nullptr;
  return o;
}

// The kernel host's end: the report's words on what the box held and what was left running.
void close_box(Opened& o, Report& rep) {
  if (!o.remote) return;
  const harness::RemoteKernel::End e = o.remote->finish();
  rep.header.push_back({"kernel host", e.result.exit_text() + ", " + std::to_string(e.result.output_bytes) + " bytes of output"});
  harness::Refusals refused = o.sub.refused;
  refused.add(e.result.refused);
  if (o.box.confine) rep.header.push_back({"refused by the box", refused.words()});
  if (e.left_running > 0)
    rep.warnings.push_back("the submission left " + std::to_string(e.left_running) +
                           " process(es) running in its box at the end: all ended with the box");
}

// A kernel through the C ABI: every set judged on the testbed, plain and (layout sets) fused.
// The report's header for a C ABI submission: what it is, the machine, its box.
Report kernel_report(const VerifyArgs& a, const Opened& opened, Tier gate, const DeviceInfo& dev) {
  const Submission& sub = opened.sub;
  Report rep;
  rep.gate = gate;
  rep.title = "rope2d verify: " + sub.path;
  rep.header = {{"submission", sub.path}, {"kind", sub.kind}};
  if (!sub.sha256.empty()) rep.header.push_back({"sha256", sub.sha256});
  if (!sub.compile_command.empty()) rep.header.push_back({"compile", sub.compile_command});
  for (const auto& line : machine_lines(dev, a)) rep.header.push_back(line);
  rep.warnings = sub.warnings;
  if (!a.run.submission.empty()) rep.header.push_back({"confinement", harness::describe(opened.box)});
  return rep;
}

// A submission that could not be built or loaded: every set fails for the one reason, with its
// status (COMPILE_ERROR, TIMEOUT, RUNTIME_ERROR); the whole message once, among the warnings.
int report_unbuilt(const VerifyArgs& a, const Opened& opened, const std::vector<ProblemSpec>& specs, Tier gate, int fd,
                   Report& rep) {
  const Submission& sub = opened.sub;
  if (opened.box.confine) rep.header.push_back({"refused by the box", sub.refused.words()});
  rep.warnings.push_back("the submission could not be " + std::string(sub.error_cause == Cause::runtime ? "loaded" : "built") +
                         ": " + sub.error);
  rep.results = unjudged(specs, sub.error, sub.error_cause);
  for (SetResult& r : rep.results) r.reproduce = reproduce_line(a.run, r.name);
  write_report(a.out_dir, rep);
  for (const SetResult& r : rep.results) send_end(fd, r, gate);
  proto::send(fd, proto::Done{rep.verdict()});
  return 0;
}

int verify_kernel(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, Tier gate, int fd, const DeviceInfo& dev) {
  Opened opened = open_submission(a);
  const Submission& sub = opened.sub;
  Report rep = kernel_report(a, opened, gate, dev);
  proto::send(fd, proto::Device{dev.name});
  if (!sub.error.empty()) return report_unbuilt(a, opened, specs, gate, fd, rep);
  Testbed bed;
  const RunOptions opts = a.run;
  Judge judge(gate, a.run.rounds);
  judge.reproduce = &opts;
  if (a.run.ieee_subnormals) judge.subnormals = Subnormals::ieee;
  judge.sources = suite_sources(opts.worst_dir);
  judge.on_call = [fd](const std::string& name) { proto::send(fd, proto::Call{name}); };
  judge.on_called = [fd] { proto::send(fd, proto::Called{}); };
  // The randn and layout sets (counter-based, the bulk of every run) made and judged on the
  // GPU, unless --cpu-judge; the others (and those handed back) on the CPU.
  judge.device_inputs = !a.cpu_judge;
  DeviceJudging how;
  how.gate = gate;
  how.subnormals = judge.subnormals;
  const DeviceJudging* gpu = judge.device_inputs ? &how : nullptr;
  std::vector<Entry> entries{plain_entry(bed, sub.backward, gpu)};
  if (sub.fused) entries.push_back(fused_entry(bed, sub.fused, gpu));
  for (std::size_t k = 0; k < specs.size(); ++k) {
    proto::send(fd, proto::Start{specs[k].name(), k, specs.size()});
    judge.next = k + 1 < specs.size() ? &specs[k + 1] : nullptr;  // made during this set's last round
    for (SetResult& r : judge.judge(specs[k], entries)) {
      send_end(fd, r, gate);
      rep.results.push_back(std::move(r));
    }
  }
  const Phases& t = judge.phases;
  // ---- Added sets (contract.hpp, huge.hpp): judged after the suite, so that a fault in them
  // cannot hide the suite's results.
  auto add_results = [&](const std::vector<SetResult>& results) {
    for (const SetResult& r : results) {
      send_end(fd, r, gate);
      rep.results.push_back(r);
    }
  };
  auto watch = [&](const std::string& name, bool calling) {
    if (calling) proto::send(fd, proto::Call{name});
    else proto::send(fd, proto::Called{});
  };
  if (!judge.context_lost() && a.only.empty()) {
    // The call contract: n == 0, two calls in flight, graph capture; one set per check and dtype.
    for (ref::Dtype d : parse_grad_dtypes(a.run.grad_dtypes, "--grad-dtypes"))
      add_results(contract_checks(sub.backward, d, gate, judge.subnormals, a.run.seed, watch));
    if (a.huge) {  // past 2^31 elements, judged on a sample
      SuiteOptions o;
      o.seed = a.run.seed;
      o.grad_dtypes = parse_grad_dtypes(a.run.grad_dtypes, "--grad-dtypes");
      add_results(huge_checks(bed, sub.backward, o, gate, judge.subnormals));
    }
  }
  // Each case's inputs and reference are made one round ahead, in the background, so those
  // two phases overlap the calls and comparisons of the round before.
  rep.header.push_back({"time", time_line(t, judge.device_inputs)});
  if (a.bench && !judge.context_lost()) {
    BenchSets b = bench_submission(sub.backward, gate, judge.subnormals, a.run.seed);
    rep.header.insert(rep.header.end(), b.header.begin(), b.header.end());
    add_results(b.results);
  }
  close_box(opened, rep);
  finish(fd, a, rep);
  return 0;
}
#endif

}  // namespace

int verify_worker(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, Tier gate, int fd) {
#ifndef ROPE2D_HAVE_CUDA
  (void)a, (void)specs, (void)gate;
  proto::send(fd, proto::NoGpu{"this build has no CUDA (nvcc was not found when it was configured)"});
  return 0;
#else
  const DeviceInfo dev = probe_device();
  if (!dev.available) {
    proto::send(fd, proto::NoGpu{dev.reason});
    return 0;
  }
  return is_solution(a.run.submission) ? verify_solution(a, specs, gate, fd, dev) : verify_kernel(a, specs, gate, fd, dev);
#endif
}

}  // namespace rope2d::cli
