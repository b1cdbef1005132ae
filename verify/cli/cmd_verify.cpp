// rope2d verify [SUBMISSION]: the main job. Verifies a kernel submission (a .cu compiled with
// nvcc, or a .so) or, with no argument, the project's own kernel, over the 16 benchmark
// workloads and the extra sets, with every integrity check, and writes a report.
//
// The GPU work runs in a child process: a submission that faults or hangs is killed (per-call
// time limit) and reported, and the verifier itself never crashes with it. Without a GPU the
// job checks what it can (the committed golden set against the reference, the reference's two
// paths against each other) and says plainly what it skipped.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "progress.hpp"
#include "rope2d/ref/regimes.hpp"
#include "rope2d/verify/check.hpp"
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

namespace {

using namespace rope2d::verify;
namespace fs = std::filesystem;
using nlohmann::json;

struct VerifyArgs {
  std::string submission, out_dir, tier = "strict", nvcc = "nvcc", only, golden = "data/golden-smoke";
  std::vector<std::string> nvcc_flags, dtypes{"bf16"};
  bool quick = false, quiet = false, bench = false;
  std::uint64_t seed = 1;
  int rounds = 2;
  double call_timeout = 20;
  std::string reproduce_prefix;
};

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


std::vector<ProblemSpec> suite(const VerifyArgs& a) {
  SuiteOptions o;
  o.seed = a.seed;
  o.quick = a.quick;
  o.grad_dtypes = parse_grad_dtypes(a.dtypes, "--grad-dtypes");
  std::vector<ProblemSpec> specs = verification_suite(o);
  if (!a.only.empty()) {
    std::erase_if(specs, [&](const ProblemSpec& s) { return s.name() != a.only; });
    if (specs.empty()) throw std::invalid_argument("--only: no problem named '" + a.only + "' in the suite");
  }
  return specs;
}

// ---- the child: everything that touches CUDA ---------------------------------------------

#ifdef ROPE2D_HAVE_CUDA
void bench_into(Report& rep, BackwardFn fn) {
  Timer timer;
  std::vector<double> bytes, times;
  for (const Workload& w : benchmark_workloads()) bytes.push_back(12.0 * w.batch * w.seq_len * 128);
  const double gm = geomean(bytes);
  std::vector<double> scores;
  for (const Workload& w : benchmark_workloads()) {
    ProblemSpec s;
    s.elements = w.batch * w.seq_len * 128 + 4 * 64;
    s.seed = 77;
    const Problem p = make_problem(s);
    void *gc, *gs, *th, *out;
    const std::int64_t n = w.batch * w.seq_len * 128;
    cudaMalloc(&gc, p.gc.size());
    cudaMalloc(&gs, p.gs.size());
    cudaMalloc(&th, p.theta.size() * 4);
    cudaMalloc(&out, p.theta.size() * 4);
    cudaMemcpy(gc, p.gc.data(), p.gc.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(gs, p.gs.data(), p.gs.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(th, p.theta.data(), p.theta.size() * 4, cudaMemcpyHostToDevice);
    const double ms = timer.median_ms([&](int r, CUstream_st* st) {
      const int sh = (r % 4) * 64;
      fn(static_cast<char*>(gc) + 2 * sh, static_cast<char*>(gs) + 2 * sh, static_cast<float*>(th) + sh,
         static_cast<float*>(out) + sh, n, 0, st);
    });
    for (void* q : {gc, gs, th, out}) cudaFree(q);
    const double score = sol_score(ms, sol_anchors(12.0 * n, gm));
    times.push_back(ms);
    scores.push_back(score);
    rep.header.push_back({fmt::format("bench {}x{}", w.batch, w.seq_len), fmt::format("{:.2f} us, SOL score (est.) {:.3f}", ms * 1e3, score)});
  }
  double mean = 0;
  for (double s : scores) mean += s / scores.size();
  rep.header.push_back({"bench geomean", fmt::format("{:.2f} us; mean SOL score (est., B200 anchors scaled by bytes) {:.3f}",
                                                     geomean(times) * 1e3, mean)});
}
#endif

int child_main(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, Tier gate, int fd) {
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
    sub.backward = reinterpret_cast<BackwardFn>(&rope2d_backward);
    sub.fused = reinterpret_cast<FusedFn>(&rope2d_backward_fused);
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
  bool lost = false;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ProblemSpec& spec = specs[k];
    send(fd, {{"type", "start"}, {"name", spec.name()}, {"index", k}, {"count", specs.size()}});
    SetResult plain{spec.name(), spec.set, std::string(ref::name(spec.grad_dtype))};
    SetResult fused{"fused:" + spec.name(), spec.set, plain.dtype};
    bool has_fused = false;
    std::string integ_plain, integ_fused;
    plain.reproduce = a.reproduce_prefix + " --only '" + spec.name() + "'";
    for (int round = 0; round < a.rounds && !lost; ++round) {
      ProblemSpec s = spec;
      s.seed = spec.seed + 1000003ull * round;  // fresh inputs in the same buffers
      const Problem p = make_problem(s);
      const Expected x = compute_expected(p);
      const RunChecks checks{.stream = round == 0, .repeat = true, .inputs = round == 0};
      auto judge = [&](SetResult& r, std::string& integ, auto&& call) {
        send(fd, {{"type", "call"}, {"name", r.name}});
        const DeviceRun run = call();
        send(fd, {{"type", "called"}});
        if (run.integrity.context_lost || !run.integrity.call_error.empty()) {
          r.error = run.integrity.call_error;
          lost = run.integrity.context_lost;
          return;
        }
        // Keep every distinct finding across rounds (later rounds skip some checks).
        if (!run.integrity.ok() && integ.find(run.integrity.describe()) == std::string::npos)
          integ += (integ.empty() ? "" : "; ") + run.integrity.describe();
        r.metrics.merge(compare(p, x, run.out.data(), gate), 10);
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
  if (a.bench && !lost) bench_into(rep, sub.backward);
  write_report(a.out_dir, rep);
  std::cout << summary(rep);
  send(fd, {{"type", "done"}, {"verdict", rep.verdict()}});
  return 0;
#endif
}

// ---- the parent: no CUDA; watches the child ----------------------------------------------

// What the machine can check without a GPU: the committed golden set against the reference
// and the reference's certified path against its MPFR path on fresh hard inputs.
int cpu_only(const VerifyArgs& a, const std::string& reason) {
  std::cout << "rope2d verify: SKIPPED the kernel runs: " << reason << "\n";
  std::cout << "rope2d verify: checking what needs no GPU instead\n";
  int failures = 0;
  if (fs::exists(fs::path(a.golden) / "manifest.json")) {
    const Report r = check_golden_against_reference(open_golden(a.golden));
    std::cout << "  golden set " << a.golden << ": " << r.verdict() << " (" << r.results.size()
              << " problems, checksums and every stored result against the reference)\n";
    failures += r.exit_code() != 0;
  } else {
    std::cout << "  golden set " << a.golden << ": SKIPPED (not found; run from the repository root)\n";
  }
  std::int64_t checked = 0, mismatched = 0;
  ref::CertifiedStats stats;
  ref::Random rng(a.seed);
  for (ref::Regime regime : ref::all_regimes)
    for (ref::Dtype d : ref::all_dtypes)
      for (int i = 0; i < 2000; ++i, ++checked) {
        const ref::Element e = ref::draw(regime, rng, d);
        const ref::Rounded f = ref::certified_backward(e, &stats), m = ref::exact_backward(e);
        bool same = true;
        for (ref::Dtype o : ref::all_dtypes) {
          const double x = f.in(o), y = m.in(o);
          same &= std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y));
        }
        mismatched += !same;
      }
  std::cout << fmt::format("  reference paths: {} elements from every regime and grad dtype, certified double path against "
                           "MPFR: {} mismatches ({} decided in double, {} by MPFR)\n",
                           checked, mismatched, stats.fast, stats.fallback);
  failures += mismatched != 0;
  std::cout << (failures ? "rope2d verify: CPU checks FAILED\n" : "rope2d verify: CPU checks passed; kernel runs SKIPPED (no GPU)\n");
  return failures ? Exit::incorrect : Exit::ok;
}

int run(VerifyArgs a) {
  const auto gate = parse_tier(a.tier);
  if (!gate) throw std::invalid_argument("--tier: expected strict, faithful-bf16, faithful-fp16, faithful-fp32 or solexecbench, found '" + a.tier + "'");
  if (!a.submission.empty() && !fs::is_regular_file(a.submission))
    throw std::invalid_argument(a.submission + ": no such file");
  const std::string stem = a.submission.empty() ? "rope2d" : fs::path(a.submission).stem().string();
  if (a.out_dir.empty()) a.out_dir = "reports/verify/" + stem;
  a.reproduce_prefix = "rope2d verify" + (a.submission.empty() ? std::string() : " " + a.submission) +
                       fmt::format(" --seed {} --rounds {} --tier {}", a.seed, a.rounds, a.tier) + (a.quick ? " --quick" : "");
  for (const auto& f : a.nvcc_flags) a.reproduce_prefix += " --nvcc-flag='" + f + "'";
  const std::vector<ProblemSpec> specs = suite(a);
  if (is_solution(a.submission)) prepare_solution(a.submission, a.out_dir + "/solution");  // malformed: exit 2 here

  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: a kill reaches a Python runner it started too
    close(fds[0]);
    int rc = 3;
    try {
      rc = child_main(a, specs, *gate, fds[1]);
    } catch (const std::exception& e) {
      send(fds[1], {{"type", "error"}, {"message", e.what()}});
    }
    std::cout.flush();
    _exit(rc);
  }
  close(fds[1]);
  Progress progress(a.quiet);
  Report partial;
  partial.gate = *gate;
  partial.title = "rope2d verify: " + (a.submission.empty() ? std::string("rope2d (this project's kernel)") : a.submission);
  std::string buffer, current, nogpu, verdict, child_error;
  bool in_call = false;
  auto last = std::chrono::steady_clock::now();
  bool killed = false;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int r = poll(&p, 1, 200);
    if (r > 0) {
      char buf[65536];
      const ssize_t k = read(fds[0], buf, sizeof buf);
      if (k <= 0) break;
      buffer.append(buf, static_cast<std::size_t>(k));
      for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
        const json m = json::parse(buffer.substr(0, nl), nullptr, false);
        buffer.erase(0, nl + 1);
        if (m.is_discarded()) continue;
        const std::string type = m.value("type", "");
        last = std::chrono::steady_clock::now();
        if (type == "nogpu") nogpu = m.value("reason", "no GPU");
        else if (type == "start") {
          current = m.value("name", "");
          progress.step(m.value("index", 0), m.value("count", 1), current);
        } else if (type == "call") in_call = true;
        else if (type == "called") in_call = false;
        else if (type == "end") {
          SetResult s{m.value("name", ""), m.value("set", ""), m.value("dtype", "")};
          const std::string d = m.value("disposition", "");
          if (d == "failed") s.error = m.value("summary", "");
          else s.integrity = d == "passed" ? "ok" : m.value("summary", "");
          partial.results.push_back(s);
        } else if (type == "done") verdict = m.value("verdict", "");
        else if (type == "error") child_error = m.value("message", "");
      }
    }
    if (in_call && std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count() > a.call_timeout) {
      kill(-pid, SIGKILL);
      killed = true;
      break;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  progress.done();
  if (!nogpu.empty()) return cpu_only(a, nogpu);
  if (!verdict.empty() && !killed) {
    std::cout << "report: " << a.out_dir << "/report.md\n";
    return verdict == "passed" ? Exit::ok : verdict == "incorrect" ? Exit::incorrect : Exit::submission_failed;
  }
  // The child died or was killed: report what finished and why the rest did not.
  SetResult broken{current.empty() ? "startup" : current, "", ""};
  if (killed) broken.error = fmt::format("a kernel call did not return within {} s (killed)", a.call_timeout);
  else if (!child_error.empty()) broken.error = child_error;
  else if (WIFSIGNALED(status)) broken.error = fmt::format("the process died with signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else broken.error = fmt::format("the process exited with status {}", WEXITSTATUS(status));
  partial.results.push_back(broken);
  write_report(a.out_dir, partial);
  std::cout << summary(partial) << "report: " << a.out_dir << "/report.md\n";
  return Exit::submission_failed;
}

}  // namespace

Action add_verify(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  app.add_option("SUBMISSION", a->submission,
                 "kernel.cu or libkernel.so with rope2d_backward, or a SOL-ExecBench solution.json; none: this project's kernel");
  app.add_option("--out", a->out_dir, "report directory (default reports/verify/<name>)");
  app.add_option("--tier", a->tier, "gate: strict, faithful-bf16, faithful-fp16, faithful-fp32, solexecbench")->capture_default_str();
  app.add_option("--nvcc", a->nvcc, "nvcc to compile .cu submissions")->capture_default_str();
  app.add_option("--nvcc-flag", a->nvcc_flags, "extra nvcc flag (repeatable), e.g. --nvcc-flag=--use_fast_math");
  app.add_option("--grad-dtypes", a->dtypes, "grad dtypes to verify")->delimiter(',')->capture_default_str();
  app.add_option("--only", a->only, "only the problem of this name (see --reproduce strings)");
  app.add_option("--seed", a->seed, "base seed")->capture_default_str();
  app.add_option("--rounds", a->rounds, "rounds of fresh inputs per set")->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--call-timeout", a->call_timeout, "seconds a kernel call may take")->capture_default_str();
  app.add_option("--golden", a->golden, "golden set checked when no GPU is present")->capture_default_str();
  app.add_flag("--quick", a->quick, "smaller shapes (one sequence per workload)");
  app.add_flag("--bench", a->bench, "also time the submission on the 16 workloads");
  app.add_flag("--quiet", a->quiet, "no progress display");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
