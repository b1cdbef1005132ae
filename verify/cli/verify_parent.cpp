// The parent half of `rope2d verify` (no CUDA): runs the worker child (verify_worker.cpp),
// reads its messages (worker_protocol.hpp), keeps the per-call time limit, falls back to the
// CPU checks without a GPU and reports what finished when the child died or was killed.
#include <fmt/format.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <string_view>
#include <variant>

#include "codec/plain_text.hpp"
#include "harness/fault_stack.hpp"
#include "harness/sandbox.hpp"
#include "progress.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "verify_worker.hpp"

namespace rope2d::cli {

using namespace rope2d::verify;

namespace {

// What the parent learns from the child's messages.
struct Watch {
  Report partial;  // every set judged so far, for the report of a run that died
  std::string current, nogpu, child_error;
  std::optional<Disposition> verdict;
  bool in_call = false;

  void take(const protocol::Message& m, Progress& progress) {
    std::visit(protocol::overloaded{
                   [&](const protocol::NoGpu& x) { nogpu = x.reason.empty() ? "no GPU" : x.reason; },
                   [&](const protocol::Start& x) {
                     current = x.name;
                     progress.step(x.index, x.count, current);
                   },
                   [&](const protocol::Call&) { in_call = true; },
                   [&](const protocol::Called&) { in_call = false; },
                   [&](const protocol::End& x) {
                     SetResult r{x.name, x.set, x.dtype};
                     r.shape = x.shape;
                     if (error_cause(x.cause)) r.fail(x.summary, x.cause);
                     else if (x.cause == Cause::not_supported) r.not_supported = x.summary, r.integrity = "ok";
                     else if (x.cause == Cause::passed) r.integrity = "ok";
                     else r.integrity = x.summary, r.finding_cause = x.cause;  // numerical, integrity, contract
                     partial.results.push_back(r);
                   },
                   [&](const protocol::Done& x) { verdict = x.verdict; },
                   [&](const protocol::Error& x) { child_error = x.message; },
                   [&](const protocol::Device&) {},
               },
               m);
  }
};

// A signal that ends the run (Ctrl-C, SIGTERM, a closed terminal, or another whose default
// ends a process and that someone may send: SIGQUIT, SIGUSR1/2, the timers, SIGXCPU): noted by the
// handler, acted on by supervise(), which ends the worker; the run folder goes, then the signal
// takes its course. (SIGPIPE keeps its default: a write to a closed pipe is this process's own.)
volatile std::sig_atomic_t ending_signal = 0;
extern "C" void note_ending_signal(int sig) { ending_signal = sig; }
constexpr int ending_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU};

// The worker makes its temporary files (the box's scratch folders among them) in `run_folder`,
// which the parent removes, however the worker ended.
// A child of the parent's that makes its temporary files in `run_folder`: fork()'s result. In
// the child: ended with the parent, however the parent ends (its boxes end with it:
// --die-with-parent), the ending signals at their defaults, and a process group of its own,
// so that a kill reaches a Python runner it started too.
pid_t fork_child(const std::string& run_folder) {
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1) _exit(3);
    for (int sig : ending_signals) std::signal(sig, SIG_DFL);
    setpgid(0, 0);
    setenv("TMPDIR", run_folder.c_str(), 1);
  }
  return pid;
}

pid_t start_worker(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, const std::string& run_folder,
                   int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork_child(run_folder);
  if (pid == 0) {
    close(fds[0]);
    harness::stack_on_fault("rope2d verify worker");  // its death is a verifier error: say where
    int rc = 3;
    try {
      rc = verify_worker(a, specs, fds[1]);
    } catch (const std::exception& e) {
      protocol::send(fds[1], protocol::Error{e.what()});
    }
    std::cout.flush();
    _exit(rc);
  }
  close(fds[1]);
  return pid;
}

// Reads the child's messages until it closes the pipe; kills it when a call overruns.
// Returns true when it was killed.
bool supervise(int fd, pid_t pid, double call_timeout, Watch& w, Progress& progress) {
  std::string buffer;
  auto last = std::chrono::steady_clock::now();
  for (;;) {
    if (ending_signal) {
      kill(-pid, SIGKILL);
      return true;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0) {
      char buf[65536];
      const ssize_t k = read(fd, buf, sizeof buf);
      if (k < 0 && errno == EINTR) continue;  // a signal: the check below
      if (k <= 0) return false;
      buffer.append(buf, static_cast<std::size_t>(k));
      for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
        const std::optional<protocol::Message> m = protocol::parse(std::string_view(buffer).substr(0, nl));
        buffer.erase(0, nl + 1);
        if (!m) continue;
        last = std::chrono::steady_clock::now();
        w.take(*m, progress);
      }
    }
    if (w.in_call && std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count() > call_timeout) {
      kill(-pid, SIGKILL);
      return true;
    }
  }
}

// The child died or was killed: report what finished and why the rest did not.
int report_broken(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, Watch& w, bool killed, int status) {
  SetResult broken{w.current.empty() ? "startup" : w.current, "", std::nullopt};
  for (const ProblemSpec& s : specs)  // the set it was in: its family, dtype and shape
    if (s.name() == w.current) broken.set = s.set, broken.dtype = s.grad_dtype, broken.shape = s.shape();
  // The worker runs the verifier's code only (a submission runs in its box, the project's kernel
  // is the project's): its fault is the verifier's, never the submission's failure. Unboxed
  // (--no-sandbox), the submission could have signalled it: then it is not told apart.
  const bool worker_fault = !killed && w.child_error.empty() && WIFSIGNALED(status) && harness::fault_signal(WTERMSIG(status)) && !a.no_sandbox;
  if (killed) broken.fail(fmt::format("a kernel call did not return within {} s (killed)", a.call_timeout), Cause::timeout);
  else if (w.child_error.rfind("verifier error", 0) == 0) broken.fail(w.child_error, Cause::verifier);
  else if (!w.child_error.empty()) broken.fail(w.child_error);
  else if (worker_fault)
    broken.fail(fmt::format("verifier error: the verifier's worker died with signal {} ({}): a fault of the verifier's own, "
                            "not a verdict on the submission",
                            WTERMSIG(status), strsignal(WTERMSIG(status))),
                Cause::verifier);
  else if (WIFSIGNALED(status)) broken.fail(fmt::format("the process died with signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
  else broken.fail(fmt::format("the process exited with status {}", WEXITSTATUS(status)));
  w.partial.results.push_back(broken);
  write_report(a.out_dir, w.partial);
  std::cout << summary(w.partial) << "report: " << plain_line(a.out_dir + "/report.md") << "\n";
  // The verifier's own faults and cross-checks (GPU against CPU) failing are not the submission's.
  if (broken.error_cause == Cause::verifier) {
    std::cerr << "rope2d verify: " << broken.error << "\n";
    return Exit::usage;
  }
  return Exit::submission_failed;
}

// What the worker started (its boxes: bubblewrap and the processes of their namespaces) comes
// back to this process, a subreaper, as the worker dies; all reaped before the run folder goes,
// so that nothing writes there while it is removed. At most `limit_s`: a process the GPU's
// driver still holds may take long to end.
void reap_descendants(double limit_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  for (;;) {
    const pid_t p = waitpid(-1, nullptr, WNOHANG);
    if (p < 0 && errno != EINTR) return;  // ECHILD: none left
    if (p == 0) {
      if (std::chrono::steady_clock::now() > until) return;
      usleep(20000);
    }
  }
}

// The ending signals noted (not acted on) while it lives, as they were before after restore();
// one ignored before (nohup's SIGHUP) stays ignored.
class NotedSignals {
 public:
  NotedSignals() {
    struct sigaction note {};
    note.sa_handler = note_ending_signal;  // no SA_RESTART: a poll or wait returns at once
    for (std::size_t i = 0; i < std::size(ending_signals); ++i) {
      sigaction(ending_signals[i], nullptr, &previous_[i]);
      if (previous_[i].sa_handler != SIG_IGN) sigaction(ending_signals[i], &note, nullptr);
    }
  }
  ~NotedSignals() { restore(); }
  NotedSignals(const NotedSignals&) = delete;
  NotedSignals& operator=(const NotedSignals&) = delete;
  void restore() {
    for (std::size_t i = 0; i < std::size(ending_signals); ++i) sigaction(ending_signals[i], &previous_[i], nullptr);
  }

 private:
  struct sigaction previous_[std::size(ending_signals)] {};
};

// A run ended by a signal says so and takes the signal's course (its default: exit 128 + sig).
void end_by_signal(const char* what) {
  if (const int sig = ending_signal) {
    std::cerr << "rope2d verify: ended by signal " << sig << " (" << strsignal(sig) << "): " << what << "\n";
    std::raise(sig);
  }
}

// The checks that need no GPU build and load the submission in boxes too: run in a child of
// their own with its temporary files in a run folder, as the worker is, so that a signal ends
// them, their boxes with them, and what they left there is removed.
int cpu_only_supervised(VerifyArgs& a, const std::vector<ProblemSpec>& specs, const std::string& why) {
  std::optional<harness::Scratch> run_folder(std::in_place, harness::Scratch::Use::for_run);
  NotedSignals noted;
  const pid_t pid = fork_child(run_folder->path());
  if (pid == 0) {
    int rc = Exit::usage;
    try {
      rc = cpu_only(a, specs, why);
    } catch (const std::exception& e) {  // bad input or the environment, as main() says it
      std::cerr << "rope2d: " << e.what() << "\n";
    }
    std::cout.flush();
    _exit(rc);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno == EINTR && ending_signal) kill(-pid, SIGKILL);
  reap_descendants(30);
  run_folder.reset();
  noted.restore();
  end_by_signal("the checks and their boxes ended, no report written");
  return WIFEXITED(status) ? WEXITSTATUS(status) : Exit::submission_failed;
}

}  // namespace

int judge_submission(VerifyArgs& a, const std::vector<ProblemSpec>& specs) {
  // Checked here, where it is exit 2 with its message, before the worker's boxes would fail.
  if (!a.run.submission.empty() && !a.no_sandbox) {
    harness::require_box_can_search(harness::scratch_base());
    harness::require_hideable_home(std::getenv("HOME") ? std::getenv("HOME") : "");
  }
  int fds[2];
  // Removed after the worker and everything it started are reaped: what the worker or its box
  // left there goes with it, also when a call overran and the worker was killed before its own
  // clean-up, or the run was interrupted.
  std::optional<harness::Scratch> run_folder(std::in_place, harness::Scratch::Use::for_run);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  NotedSignals noted;
  const pid_t pid = start_worker(a, specs, run_folder->path(), fds);
  Progress progress(a.quiet);
  Watch w;
  w.partial.gate = a.run.tier;
  w.partial.title = "rope2d verify: " + (a.run.submission.empty() ? std::string("rope2d (this project's kernel)") : a.run.submission);
  const bool killed = supervise(fds[0], pid, a.call_timeout, w, progress);
  int status = 0;
  waitpid(pid, &status, 0);
  reap_descendants(30);
  close(fds[0]);
  progress.done();
  run_folder.reset();
  noted.restore();
  end_by_signal("the worker and its box ended, no report written");
  if (!w.nogpu.empty()) {
    if (a.out_default) {
      a.out_dir += "-no-gpu";
      check_verify_folder(a);
    }
    const int rc = cpu_only_supervised(a, specs, w.nogpu);
    if (rc != Exit::ok || !a.require_gpu) return rc;
    std::cout << "rope2d verify: --require-gpu: the kernel runs were SKIPPED (" << w.nogpu << "): exit " << Exit::no_gpu << "\n";
    return Exit::no_gpu;
  }
  if (w.verdict && !killed) {
    std::cout << "report: " << plain_line(a.out_dir + "/report.md") << "\n";
    return *w.verdict == Disposition::passed ? Exit::ok : *w.verdict == Disposition::incorrect ? Exit::incorrect : Exit::submission_failed;
  }
  return report_broken(a, specs, w, killed, status);
}

}  // namespace rope2d::cli
