// rope2d sweep [SUBMISSION] [--all | --range LO:HI] [--shard I/N] [--out DIR]: the angle
// sweep alone. Every float32 bit pattern of the range (all 2^32 with --all, the default) with
// the sweep's grad pairs, run by the kernel (this project's, or a .cu/.so submission) on the
// GPU and judged by the GPU comparison against the float32-bound tier; writes sweep.json and
// the worst-case list sweep_worst.txt under --out. Without a GPU the kernel runs are SKIPPED
// and the sweep's machinery runs on the host over the first 2^20 patterns of the range, with
// a float32 evaluation standing in for the kernel. Exit 0 passed, 1 over the bound or time box
// reached, 2 bad input, 3 the submission failed to build, load or run (a call that returned an
// error, faulted or did not finish within --call-timeout).
#include <memory>
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "rope2d/ref/floats.hpp"
#include "products/nightly/nightly_shard.hpp"
#include "rope2d/verify/model/report.hpp"
#include "products/sweep/sweep_report.hpp"
#include "products/sweep/sweep_worst.hpp"
#include "codec/validate.hpp"
#include "codec/atomic_file.hpp"
#include "codec/plain_text.hpp"
#include "harness/kinds.hpp"
#include "harness/submission.hpp"
#include "harness/sandbox.hpp"

#ifdef ROPE2D_HAVE_CUDA
#include "rope2d/rope2d_backward.h"
#include "harness/remote_kernel.hpp"
#include "verify_worker.hpp"
#endif

namespace rope2d::cli {

using namespace rope2d::verify;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct SweepArgs {
  std::string submission, out = "reports/sweep", range, shard, nvcc = "nvcc";
  bool all = false, quiet = false, quick = false;
  double budget_s = 600, call_timeout = 60, build_timeout = 600, load_timeout = 120;
};

// Decimal (leading zeros are still decimal, never octal) or 0x hex; no sign, no spaces.
std::uint64_t parse_pattern(const std::string& text, const std::string& what) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = hex ? text.substr(2) : text;
  const bool ok = !digits.empty() && digits.size() <= 20 &&
                  digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") == std::string::npos;
  std::uint64_t v = 0;
  for (char c : ok ? digits : std::string()) {
    v = v * (hex ? 16 : 10) + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10);
    if (v > all_patterns) break;
  }
  if (!ok || v > all_patterns)
    throw std::invalid_argument(what + ": expected a bit pattern from 0 to 0x100000000 (decimal or 0x hex), found '" +
                                text.substr(0, 60) + "'");
  return v;
}

// The options of the sweep asked for: its budget, and the range of bit patterns --range and
// --shard leave it.
SweepOptions sweep_options(const SweepArgs& a) {
  SweepOptions o;
  o.budget_s = a.budget_s;
  o.quick = a.quick;
  o.lo = 0;
  o.hi = all_patterns;
  if (!a.range.empty()) {
    const std::size_t colon = a.range.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("--range: expected LO:HI, found '" + a.range.substr(0, 60) + "'");
    o.lo = parse_pattern(a.range.substr(0, colon), "--range LO");
    o.hi = parse_pattern(a.range.substr(colon + 1), "--range HI");
    if (!(o.lo < o.hi)) throw std::invalid_argument("--range: expected LO < HI, found '" + a.range.substr(0, 60) + "'");
  }
  if (!a.shard.empty()) {
    const auto [i, n] = parse_shard(a.shard, "--shard");  // as nightly --shard reads it
    // At whole chunks, so that the shards' worst-case lists join into the whole range's.
    const auto [lo, hi] = split_range(o.lo, o.hi, i, n, sweep_chunk_patterns);
    if (lo == hi)
      throw std::invalid_argument(fmt::format("--shard {}: expected a shard with angles, found none: [{:#x}, {:#x}) holds {} chunk(s) "
                                              "of 2^26 patterns, and shards split it at whole chunks",
                                              a.shard.substr(0, 20), o.lo, o.hi,
                                              (o.hi - o.lo + sweep_chunk_patterns - 1) / sweep_chunk_patterns));
    std::tie(o.lo, o.hi) = std::pair{lo, hi};
  }
  return o;
}

int run(const SweepArgs& a) {
  // A submission is checked as verify checks it, GPU or not: a file of a kernel kind, not too big.
  if (!a.submission.empty()) {
    if (!fs::is_regular_file(a.submission)) throw std::invalid_argument(a.submission + ": no such file");
    const harness::SubmissionKind* kind = harness::kind_of(a.submission);
    if (!kind || kind->host != harness::Host::kernel)
      throw std::invalid_argument(a.submission + ": expected a .cu or .so kernel submission (by the ending of its name)");
    check_submission_size(a.submission);
  }
  if (a.out.empty()) throw std::invalid_argument("--out: expected a folder, found an empty name");
  require_local_output_folder(a.out, "--out");  // a relative one: no link on the way to it (a checkout's `reports`)
  check_sweep_folder(a.out, "--out");  // before anything is built or run
  empty_build_folder(a.out + "/build");  // an earlier sweep's build of another submission
  SweepOptions o = sweep_options(a);
  const std::string command = "rope2d sweep" + std::string(a.submission.empty() ? "" : " " + a.submission) +
                              fmt::format(" --range {:#x}:{:#x}", o.lo, o.hi) + (a.quick ? " --quick" : "");
  Progress progress(a.quiet);
  const auto show = [&](std::int64_t done, std::int64_t total, const std::string& what) {
    progress.step(static_cast<std::size_t>(done * 100 / std::max<std::int64_t>(1, total)), 100, what);
  };
  SweepResult r;
  std::string device = "host CPU";
  std::string skipped = "no GPU";
#ifdef ROPE2D_HAVE_CUDA
  BackwardFn fn = &rope2d_backward;
  const DeviceInfo dev = probe_device();
  skipped = dev.available ? "" : dev.reason;
  // A submission is built in the box and served by the kernel host there (harness/), as verify does.
  std::unique_ptr<harness::Scratch> scratch;
  std::unique_ptr<harness::RemoteKernel> remote;
  if (dev.available && !a.submission.empty()) {
    harness::require_sandbox("a sweep runs a submission boxed or not at all (rope2d verify --no-sandbox runs one unconfined)");
    VerifyArgs v;
    v.out_dir = a.out;
    scratch = std::make_unique<harness::Scratch>();
    const harness::BoxPolicy box = submission_box(v, scratch->path(), true);
    Submission sub = prepare_submission(a.submission, {.nvcc = a.nvcc, .include_dir = repo_file("cuda/include"),
                                                       .build_dir = a.out + "/build", .box = box, .timeout_s = a.build_timeout});
    if (sub.error.empty()) {
      remote = std::make_unique<harness::RemoteKernel>(
          harness::RemoteOptions{.host_program = kernel_host_program(scratch->path()), .library = sub.library, .symbol = sub.symbol,
                                 .fused_symbol = sub.fused_symbol, .box = box, .start_timeout_s = a.load_timeout,
                                 .call_timeout_s = a.call_timeout});
      if (!remote->ready()) sub.error = remote->error();
    }
    if (!sub.error.empty()) {
      std::cout << "rope2d sweep: submission " << a.submission << " failed: " << sub.error.substr(0, 4000) << "\n";
      return Exit::submission_failed;
    }
    fn = &harness::RemoteKernel::backward;
  }
  if (dev.available) {
    device = dev.name;
    try {
      r = sweep_angles(fn, o, show);
    } catch (const std::runtime_error& e) {
      if (!remote) throw;
      // The submission's call failed: returned an error, faulted, or did not finish in time.
      progress.done();
      std::cout << "rope2d sweep: submission " << a.submission << " failed: " << std::string(e.what()).substr(0, 4000) << "\n";
      return Exit::submission_failed;
    }
  }
#endif
  if (!r.ran) {
    // The machinery without a GPU: the loop, the host twin and the CPU judge on a small range.
    const std::string unrun = a.submission.empty() ? "" : " (" + plain_line(a.submission) + " was neither built nor run)";
    std::cout << "rope2d sweep: kernel runs SKIPPED (" << skipped << ")" << unrun
              << "; the sweep's host path on a sample (2^16 patterns from each of 16 shards) of " << sweep_range_words(o.lo, o.hi)
              << ", a float32 evaluation (glibc sinf/cosf) standing in for the kernel\n";
    o.quick = true;
    r = run_sweep(o, host_sweep_chunk, std::int64_t{1} << 18, show);
    r.backend = "host (float32 evaluation with glibc sinf/cosf; kernel runs SKIPPED: " + skipped + unrun + ")";
  }
  progress.done();
  write_sweep_files(a.out, r, command, device);
  std::cout << sweep_markdown(r) << "\nreport: " << (fs::path(a.out) / "sweep.json").string() << ", "
            << (fs::path(a.out) / "sweep_worst.txt").string() << "\n";
  return r.complete && r.metrics.passes(Tier::float32_bound) ? Exit::ok : Exit::incorrect;
}

}  // namespace

Action add_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  app.add_option("submission", a->submission, ".cu or .so exporting rope2d_backward (default: this project's kernel)");
  app.add_flag("--all", a->all, "every one of the 2^32 float32 bit patterns (the default)");
  app.add_option("--range", a->range, "a half-open range LO:HI of bit patterns (0x hex or decimal, HI <= 0x100000000)")
      ->excludes(app.get_option("--all"));
  app.add_option("--shard", a->shard, "I/N: the I-th of N consecutive shards of the range (0 <= I < N)");
  app.add_option("--budget-s", a->budget_s, "time box in seconds: the result says where to resume")->capture_default_str()
      ->check(CLI::Range(1e-3, 86400.0));
  app.add_option("--out", a->out, "folder for sweep.json and sweep_worst.txt")->capture_default_str();
  app.add_option("--nvcc", a->nvcc, "nvcc to compile a .cu submission")->capture_default_str();
  app.add_flag("--quick", a->quick, "a sample: the first 2^16 patterns of each of the range's 16 shards");
  app.add_option("--call-timeout", a->call_timeout, "seconds a call of a submission may take")->capture_default_str()
      ->check(seconds_range(86400));
  app.add_option("--build-timeout", a->build_timeout, "seconds a submission's build may take")->capture_default_str()
      ->check(seconds_range(86400));
  app.add_option("--load-timeout", a->load_timeout, "seconds the kernel host's start (loading the submission) may take")
      ->capture_default_str()
      ->check(seconds_range(86400));
  app.add_flag("--quiet", a->quiet, "no progress display");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
