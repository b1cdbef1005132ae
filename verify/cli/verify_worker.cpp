// The worker half of `rope2d verify`: loads the submission (or the project's kernel, or a
// SOL-ExecBench solution), runs every problem through the GPU testbed, judges the outputs and
// writes the report, telling the supervising parent where it is as it goes.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "verify_worker.hpp"
#include "rope2d/verify/bench.hpp"
#include "rope2d/verify/device.hpp"
#include "rope2d/verify/report.hpp"
#include "rope2d/verify/solution.hpp"
#include "rope2d/verify/sol_score.hpp"
#include "rope2d/verify/submission.hpp"
#include "rope2d/verify/suites.hpp"
#include "rope2d/verify/timing.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
#endif

namespace rope2d::cli {

using namespace rope2d::verify;
namespace fs = std::filesystem;
using nlohmann::json;

// Messages from the child, one JSON object per line.
void send(int fd, const json& j) {
  const std::string s = j.dump() + "\n";
  for (std::size_t off = 0; off < s.size();) {
    const ssize_t k = write(fd, s.data() + off, s.size() - off);
    if (k <= 0) return;
    off += static_cast<std::size_t>(k);
  }
}

bool is_solution(const std::string& path) { return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0; }

namespace {

#ifdef ROPE2D_HAVE_CUDA
// Where a run's wall time goes, in seconds, for the report header.
struct Phases {
  double inputs = 0, reference = 0, gpu = 0, compare = 0;
  template <class F>
  auto time(double& into, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    auto result = f();
    into += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
};

// Times the submission as rope2d bench times the project's kernel; a call that fails while
// timed becomes a line of the report instead of the figures. The score uses the kernel clock
// (CUPTI, as SOL-ExecBench) where there is one, else the events.
void bench_into(Report& rep, BackwardFn fn) {
  Timer timer;
  const bool kernel_clock = timer.has_kernel_clock();
  std::vector<double> times, scores;
  for (std::size_t k = 0; k < benchmark_workloads().size(); ++k) {
    const Workload& w = benchmark_workloads()[k];
    const std::string name = fmt::format("bench {}x{}", w.batch, w.seq_len);
    try {
      const DeviceInputs d(bench_problem(AngleSource::randn, w.batch, w.seq_len, 77 + k), w.batch * w.seq_len * 128);
      const Timing t = time_backward(timer, fn, d);
      const double ms = kernel_clock ? t.kernel_ms : t.event_ms;
      const double score = sol_score(ms, workload_anchors(k));
      times.push_back(ms);
      scores.push_back(score);
      const std::string kernel = kernel_clock ? fmt::format("{:.2f} us kernel, ", t.kernel_ms * 1e3) : "";
      rep.header.push_back({name, fmt::format("{}{:.2f} us events, SOL score (est.) {:.3f}", kernel, t.event_ms * 1e3, score)});
    } catch (const std::exception& e) {
      rep.header.push_back({name, fmt::format("not timed: {}", e.what())});
      return;
    }
  }
  double mean = 0;
  for (double s : scores) mean += s / scores.size();
  rep.header.push_back({"bench clock", timer.kernel_clock_note()});
  rep.header.push_back({"bench geomean", fmt::format("{:.2f} us; mean SOL score (est., B200 anchors scaled by bytes) {:.3f}",
                                                     geomean(times) * 1e3, mean)});
}
#endif

}  // namespace

int verify_worker(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, Tier gate, int fd) {
#ifndef ROPE2D_HAVE_CUDA
  send(fd, {{"type", "nogpu"}, {"reason", "this build has no CUDA (nvcc was not found when it was configured)"}});
  return 0;
#else
  const DeviceInfo dev = probe_device();
  if (!dev.available) {
    send(fd, {{"type", "nogpu"}, {"reason", dev.reason}});
    return 0;
  }
  Report rep;
  rep.gate = gate;
  if (is_solution(a.submission)) {
    const Solution sol = prepare_solution(a.submission, a.out_dir + "/solution");
    rep.title = "rope2d verify: " + a.submission;
    rep.header = {{"submission", a.submission},
                  {"kind", "sol-execbench solution (" + sol.entry_point + ", " +
                               (sol.destination_passing ? "destination-passing" : "returns its output") + ")"},
                  {"sha256", sol.sha256},
                  {"gpu", fmt::format("{} ({} SMs, {:.0f} GiB)", dev.name, dev.sm_count, dev.memory_gib)},
                  {"driver / runtime", fmt::format("{} / {}", dev.driver_version, dev.runtime_version)},
                  {"reference", "correctly rounded float32: certified double enclosure, MPFR (Ziv) fallback"},
                  {"seeds", fmt::format("base {}, {} rounds of fresh inputs per set", a.seed, a.rounds)}};
    rep.warnings.push_back("run through verify/python/solution_runner.py: outputs poisoned with NaN (destination-passing), "
                           "inputs and repeat calls compared; guard bands and the stream check need the C ABI");
    send(fd, {{"type", "device"}, {"name", dev.name}});
    SolutionRun run;
    run.runner = repo_file("verify/python/solution_runner.py");
    run.work_dir = a.out_dir + "/work";
    run.call_timeout_s = a.call_timeout;
    run.rounds = a.rounds;
    run.gate = gate;
    std::size_t done = 0;
    run.on_line = [&](const std::string& line) {
      const json m = json::parse(line, nullptr, false);
      if (m.is_discarded()) return;
      if (m.value("type", "") == "call") {
        send(fd, {{"type", "start"}, {"name", m.value("name", "")}, {"index", done / a.rounds}, {"count", specs.size()}});
        send(fd, {{"type", "call"}, {"name", m.value("name", "")}});
      } else if (m.value("type", "") == "called") {
        ++done;
        send(fd, {{"type", "called"}});
      }
    };
    rep.results = run_solution(sol, specs, run);
    for (const SetResult& r : rep.results)
      send(fd, {{"type", "end"}, {"name", r.name}, {"set", r.set}, {"dtype", r.dtype}, {"disposition", r.disposition(gate)},
                {"summary", !r.ran() ? r.error : r.integrity}});
    write_report(a.out_dir, rep);
    std::cout << summary(rep);
    send(fd, {{"type", "done"}, {"verdict", rep.verdict()}});
    return 0;
  }
  Submission sub;
  if (a.submission.empty()) {
    sub.kind = "builtin";
    sub.path = "rope2d (this project's kernel)";
    sub.backward = &rope2d_backward;
    sub.fused = &rope2d_backward_fused;
  } else {
    sub = load_submission(a.submission, a.out_dir + "/build", a.nvcc, a.nvcc_flags, repo_file("cuda/include"));
  }
  rep.title = "rope2d verify: " + sub.path;
  rep.header = {{"submission", sub.path}, {"kind", sub.kind}};
  if (!sub.sha256.empty()) rep.header.push_back({"sha256", sub.sha256});
  if (!sub.compile_command.empty()) rep.header.push_back({"compile", sub.compile_command});
  rep.header.push_back({"gpu", fmt::format("{} ({} SMs, {:.0f} GiB)", dev.name, dev.sm_count, dev.memory_gib)});
  rep.header.push_back({"driver / runtime", fmt::format("{} / {}", dev.driver_version, dev.runtime_version)});
  rep.header.push_back({"reference", "correctly rounded float32: certified double enclosure, MPFR (Ziv) fallback"});
  rep.header.push_back({"seeds", fmt::format("base {}, {} rounds of fresh inputs per set", a.seed, a.rounds)});
  rep.warnings = sub.warnings;
  send(fd, {{"type", "device"}, {"name", dev.name}});
  if (!sub.error.empty()) {
    SetResult r;
    r.name = "load";
    r.set = "build";
    r.error = sub.error;
    rep.results.push_back(r);
    write_report(a.out_dir, rep);
    send(fd, {{"type", "end"}, {"name", "load"}, {"disposition", "failed"}, {"summary", sub.error}});
    return 0;
  }
  Testbed bed;
  Phases phases;
  bool lost = false;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ProblemSpec& spec = specs[k];
    send(fd, {{"type", "start"}, {"name", spec.name()}, {"index", k}, {"count", specs.size()}});
    SetResult plain{spec.name(), spec.set, std::string(ref::name(spec.grad_dtype))};
    SetResult fused{"fused:" + spec.name(), spec.set, plain.dtype};
    bool has_fused = false;
    std::string integ_plain, integ_fused;
    plain.reproduce = reproduce_line(a.options(), plain.name);
    fused.reproduce = reproduce_line(a.options(), fused.name);
    for (int round = 0; round < a.rounds && !lost; ++round) {
      const Problem p = phases.time(phases.inputs, [&] { return make_problem(spec.round(round)); });  // fresh inputs
      const Expected x = phases.time(phases.reference, [&] { return compute_expected(p); });
      const RunChecks checks{.stream = round == 0, .repeat = true, .inputs = round == 0};
      auto judge = [&](SetResult& r, std::string& integ, auto&& call) {
        send(fd, {{"type", "call"}, {"name", r.name}});
        const DeviceRun run = phases.time(phases.gpu, call);
        send(fd, {{"type", "called"}});
        if (run.integrity.context_lost || !run.integrity.call_error.empty()) {
          r.error = run.integrity.call_error;
          lost = run.integrity.context_lost;
          return;
        }
        // Keep every distinct finding across rounds (later rounds skip some checks).
        if (!run.integrity.ok() && integ.find(run.integrity.describe()) == std::string::npos)
          integ += (integ.empty() ? "" : "; ") + run.integrity.describe();
        r.metrics.merge(phases.time(phases.compare, [&] { return compare(p, x, run.out.data(), gate); }), 10);
        r.kernel_ms = std::max(r.kernel_ms, run.kernel_ms);
      };
      judge(plain, integ_plain, [&] { return bed.run(sub.backward, p, checks); });
      if (sub.fused && !p.positions.empty() && !lost) {
        has_fused = true;
        judge(fused, integ_fused, [&] { return bed.run_fused(sub.fused, p, checks); });
      }
    }
    if (lost && plain.error.empty() && (!has_fused || fused.error.empty()))
      plain.error = "not run: an earlier call broke the CUDA context";
    plain.integrity = integ_plain.empty() ? "ok" : integ_plain;
    fused.integrity = integ_fused.empty() ? "ok" : integ_fused;
    for (SetResult* r : {&plain, &fused}) {
      if (r == &fused && !has_fused) continue;
      rep.results.push_back(*r);
      send(fd, {{"type", "end"}, {"name", r->name}, {"set", r->set}, {"dtype", r->dtype}, {"disposition", r->disposition(gate)},
                {"summary", !r->ran() ? r->error : r->integrity != "ok" ? r->integrity
                                                  : fmt::format("max {:.3g} x 2^-24 S, {} over {}", r->metrics.max_scaled,
                                                                r->metrics.over[static_cast<int>(gate)], name(gate))}});
    }
  }
  rep.header.push_back({"time", fmt::format("inputs {:.1f} s, reference {:.1f} s, GPU calls and integrity checks {:.1f} s, "
                                            "comparison {:.1f} s",
                                            phases.inputs, phases.reference, phases.gpu, phases.compare)});
  if (a.bench && !lost) bench_into(rep, sub.backward);
  write_report(a.out_dir, rep);
  std::cout << summary(rep);
  send(fd, {{"type", "done"}, {"verdict", rep.verdict()}});
  return 0;
#endif
}

}  // namespace rope2d::cli
