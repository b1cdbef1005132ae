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

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>
#include <variant>

#include "commands.hpp"
#include "machine_outputs.hpp"
#include "options.hpp"
#include "verify_worker.hpp"
#include "progress.hpp"
#include "rope2d/ref/regimes.hpp"
#include "codec/atomic_file.hpp"
#include "codec/folder_file.hpp"
#include "rope2d/verify/judge/check.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "codec/plain_text.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "harness/solution.hpp"
#include "harness/sandbox.hpp"
#include "harness/submission.hpp"
#include "rope2d/verify/judge/suites.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;
namespace fs = std::filesystem;

// --list: the selected problems with their seeds and reproduce lines, nothing run.
int list(const VerifyArgs& a, const std::vector<ProblemSpec>& specs) {
  for (const ProblemSpec& s : specs)
    std::cout << fmt::format("{} seed={} elements={} reproduce: {}\n", s.name(), s.seed, s.n(),
                             reproduce_line(a.run, s.name()));
  return Exit::ok;
}

}  // namespace

namespace {

// The reference's certified double path against its MPFR path on fresh hard inputs: 2000
// elements of every regime and grad dtype, every output dtype compared bit for bit.
struct ReferencePaths {
  std::int64_t mismatched = 0;
  std::string words;
};
ReferencePaths check_reference_paths(std::uint64_t seed) {
  std::int64_t checked = 0;
  ReferencePaths r;
  ref::CertifiedStats stats;
  ref::Random rng(seed);
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
        r.mismatched += !same;
      }
  r.words = fmt::format("{} elements from every regime and grad dtype, certified double path against MPFR: {} mismatches "
                        "({} decided in double, {} by MPFR)",
                        checked, r.mismatched, stats.fast, stats.fallback);
  return r;
}

// The committed golden set against the reference (checksums and every stored result), where it
// is; whether it failed.
bool golden_set_fails(const VerifyArgs& a, Report& rep) {
  if (!fs::exists(fs::path(a.golden) / "manifest.json")) {
    std::cout << "  golden set " << a.golden << ": SKIPPED (not found)\n";
    return false;
  }
  const Report r = check_golden_against_reference(open_golden(a.golden));
  std::cout << "  golden set " << a.golden << ": " << name(r.verdict()) << " (" << r.results.size()
            << " problems, checksums and every stored result against the reference)\n";
  rep.header.push_back({"golden set", a.golden + ": " + std::string(name(r.verdict()))});
  return r.exit_code() != 0;
}

}  // namespace

// What the machine can check without a GPU: the committed golden set against the reference
// and the reference's certified path against its MPFR path on fresh hard inputs. The report
// holds every selected set, with the status that says why none was judged: skipped for want
// of a GPU, or the submission's build failure.
int cpu_only(const VerifyArgs& a, const std::vector<ProblemSpec>& specs, const std::string& reason) {
  std::cout << "rope2d verify: SKIPPED the kernel runs: " << reason << "\n";
  std::cout << "rope2d verify: checking what needs no GPU instead\n";
  // An explicit --golden that is not there is bad input, not something to skip.
  const bool default_golden = a.golden == VerifyArgs{}.golden;
  if (!default_golden && !fs::exists(fs::path(a.golden) / "manifest.json"))
    throw std::invalid_argument("--golden: expected a golden set (a folder with manifest.json), found nothing at " + a.golden);
  Report rep;
  rep.gate = a.run.tier;
  const std::string submission = a.run.submission.empty() ? std::string("rope2d (this project's kernel)") : a.run.submission;
  rep.title = "rope2d verify: " + submission;
  rep.header = {{"submission", submission}, {"kernel runs", "SKIPPED: " + reason + " (no kernel ran, no set was judged)"}};
  // Every set with one reason and its kind; the reproduce lines rerun each where a GPU is.
  const auto write = [&](const std::string& why, Cause kind) {
    rep.results = unjudged(specs, why, kind);
    for (SetResult& r : rep.results) {
      r.reproduce = reproduce_line(a.run, r.name);
      const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ProblemSpec& s) { return s.name() == r.name; });
      r.beyond_definition = !within_definition(*spec, a.definition_dtypes, a.definition_head_dim);
    }
    write_report(a.out_dir, rep);
    std::cout << "report: " << plain_line(a.out_dir + "/report.md") << "\n";
  };
  // Its name as the terminal shows it: a file's name may hold escapes and line breaks.
  const std::string shown = plain_line(a.run.submission);
  std::optional<harness::Unprepared> unbuilt;
  if (!a.run.submission.empty()) {
    // What its harness checks without a GPU: built or byte-compiled in the box, loaded.
    unbuilt = submission_harness(a)->cpu_checks(rep, [&](const std::string& line) {
      std::cout << "  submission " << shown << ": " << line << "\n";
    });
    if (unbuilt) std::cout << "rope2d verify: the submission failed; kernel runs SKIPPED (no GPU)\n";
  }
  if (unbuilt) {
    write(unbuilt->why, unbuilt->cause);
    return Exit::submission_failed;
  }
  int failures = golden_set_fails(a, rep);
  const ReferencePaths paths = check_reference_paths(a.run.seed);
  std::cout << "  reference paths: " << paths.words << "\n";
  rep.header.push_back({"reference paths", paths.words});
  failures += paths.mismatched != 0;
  if (failures) rep.warnings.push_back("the CPU checks FAILED (golden set or reference paths): the verifier's own data is in question");
  std::cout << (failures ? "rope2d verify: CPU checks FAILED\n" : "rope2d verify: CPU checks passed; kernel runs SKIPPED (no GPU)\n");
  write("kernel runs skipped: " + reason, Cause::no_gpu);
  return failures ? Exit::incorrect : Exit::ok;
}

void check_verify_folder(const VerifyArgs& a) {
  // The default folder lies in the current folder, whose contents may be anyone's (a checkout).
  if (a.out_default) require_local_output_folder(a.out_dir, "the default report folder (--out names another)");
  check_report_folder(a.out_dir, "--out");
  // The folders the run fills hold no link that a write would follow out of --out.
  for (const char* filled : {"build", "solution"}) require_output_tree((fs::path(a.out_dir) / filled).string(), "--out");
  // And nothing an earlier run of another submission left there (--list runs nothing); a
  // folder that holds the submission itself (an earlier run's build verified again) is left.
  if (a.list) return;
  const auto holds_submission = [&](const fs::path& folder) { return !a.run.submission.empty() && lies_within(a.run.submission, folder); };
  const fs::path build = fs::path(a.out_dir) / "build", sources = fs::path(a.out_dir) / "solution";
  if (!holds_submission(build)) empty_build_folder(build.string());
  // A run of no solution writes no sources: their folder emptied where rope2d marked it, else left.
  if (!holds_submission(sources) && (is_solution(a.run.submission) || fs::exists(sources / ".rope2d-sources")))
    empty_sources_folder(sources.string());
}

namespace {

// Each --hide an existing folder the box may go without (harness::hideable): a typo, or /usr,
// would otherwise be dropped in silence and the folder meant to be hidden seen.
void check_hides(const std::vector<std::string>& hides) {
  for (const std::string& h : hides) {
    std::error_code ec;
    const fs::path real = fs::canonical(h, ec);
    if (ec || !fs::is_directory(real, ec)) bad_input("--hide", "", "an existing folder", "'" + plain_line(h) + "'");
    if (!harness::hideable(real.string()))
      bad_input("--hide", "", "a folder the box can run without (not /, /tmp, none under /dev, /proc or /sys, none holding "
                "/usr, /lib, /bin, /etc or /opt)", "'" + plain_line(h) + "'");
  }
}

int run(VerifyArgs a, const MachineOutputs& mo) {
  if (const char* env = std::getenv("ROPE2D_REQUIRE_GPU"); env && *env) {
    if (std::string(env) != "0" && std::string(env) != "1")
      throw std::invalid_argument("ROPE2D_REQUIRE_GPU: expected 1 (require a GPU) or 0, found '" + std::string(env).substr(0, 40) + "'");
    a.require_gpu |= std::string(env) == "1";
  }
  // An old name warns once here: reproduce lines and re-executed children get today's name.
  a.run.tier = tier_option(a.tier_name);
  if (!a.run.submission.empty() && !fs::is_regular_file(a.run.submission))
    throw std::invalid_argument(a.run.submission + ": no such file");
  // Too big a file is bad input (exit 2), refused before it is hashed or copied.
  if (!a.run.submission.empty()) check_submission_size(a.run.submission);
  std::string stem = a.run.submission.empty() ? "rope2d" : fs::path(a.run.submission).stem().string();
  if (stem.empty() || stem == "." || stem == "..") stem = "submission";  // "...cu": its stem would climb out of reports/verify
  a.out_default = a.out_dir.empty();
  if (a.out_default) a.out_dir = "reports/verify/" + stem;
  // Where the report and trace go, before anything is built or run.
  check_verify_folder(a);
  check_machine_outputs(mo);
  // The one reading of --grad-dtypes: a name it does not know is exit 2, naming it.
  a.run.grad_dtypes = parse_grad_dtypes(a.grad_dtypes_option, "--grad-dtypes");
  check_hides(a.hide);
  // The submission's folder opened once, here: this process's read of a solution and the
  // worker's (forked from this one) are beneath the same descriptor.
  if (!a.run.submission.empty())
    a.submission_folder = std::make_shared<const SubmitterFolder>(fs::path(a.run.submission).parent_path().string());
  // A submission runs boxed or, asked, unconfined: never so for the machine's lack of a box.
  if (!a.run.submission.empty() && !a.no_sandbox && !a.list)
    harness::require_sandbox("a submission runs unconfined only when asked: --no-sandbox runs it with the caller's rights, "
                             "and its report then says NOT CONFINED");
  if (a.sanitize) return verify_sanitized(a);
  if (is_solution(a.run.submission)) {
    // Malformed: exit 2 here. Judged over its definition's grad dtypes unless --grad-dtypes says.
    // --list writes nothing: its sources are written out only for a run.
    const DefinitionScope scope =
        definition_scope(a.list ? read_solution(a.run.submission, a.submission_folder.get())
                                : prepare_solution(a.run.submission, a.out_dir + "/solution", a.submission_folder.get()));
    a.definition_dtypes = scope.grad_dtypes;
    a.definition_head_dim = scope.head_dim;
    if (!a.definition_dtypes.empty() && !a.dtypes_given) a.run.grad_dtypes = a.definition_dtypes;
  }
  std::vector<ProblemSpec> specs = select_problems(a.run, a.only);
  // Sets the definition's axes cannot shape (a flat size head_dim does not divide): only when
  // asked for (--beyond-axes, or by name with --only), and then judged beyond the definition.
  if (a.only.empty() && !a.beyond_axes)
    std::erase_if(specs, [&](const ProblemSpec& s) { return !on_axes(s, a.definition_head_dim); });
  // Never "passed" on nothing: sets beyond the definition stay out of the verdict, so a run
  // whose every set lies beyond it would judge nothing.
  // A set of no elements judges nothing either, whatever the submission.
  const auto within = [&](const ProblemSpec& s) {
    return s.n() != 0 && within_definition(s, a.definition_dtypes, a.definition_head_dim);
  };
  if (!a.list && std::none_of(specs.begin(), specs.end(), within))
    throw std::invalid_argument(
        (a.run.submission.empty() ? std::string() : a.run.submission + ": ") + "every selected set " +
        (is_solution(a.run.submission) ? "lies beyond the definition (grad dtypes " + grad_dtype_list(a.definition_dtypes, ", ") +
                                             ", head_dim " + std::to_string(a.definition_head_dim) + ") or has no elements"
                                       : std::string("has no elements")) +
        ": nothing would be judged; select one with elements" + (is_solution(a.run.submission) ? " within it" : ""));
  if (a.list) return list(a, specs);

  StdoutForJson redirect(mo.json);  // the worker's summary too: stdout holds the JSON alone
  const int rc = judge_submission(a, specs);
  redirect.restore();
  emit_machine_outputs(mo, a.out_dir);
  return rc;
}

}  // namespace

Action add_verify(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  app.add_option("SUBMISSION", a->run.submission,
                 "kernel.cu or libkernel.so with rope2d_backward, or a SOL-ExecBench solution.json; none: this project's kernel");
  app.add_option("--out", a->out_dir, "report directory (default reports/verify/<name>, or <name>-no-gpu where no GPU is)");
  app.add_option("--tier", a->tier_name, "gate: " + tier_names() + " (old names strict, faithful-* still accepted, deprecated)")->capture_default_str();
  app.add_option("--nvcc", a->run.nvcc, "nvcc to compile .cu submissions")->capture_default_str();
  app.add_option("--nvcc-flag", a->run.nvcc_flags, "extra nvcc flag (repeatable), e.g. --nvcc-flag=--use_fast_math")
      ->allow_extra_args(false);  // one flag each: never the SUBMISSION after it
  CLI::Option* dtypes = app.add_option("--grad-dtypes", a->grad_dtypes_option,
                                        "grad dtypes to verify (a solution.json: by default its definition's, 090: bf16; "
                                        "others given here are judged beyond the definition, outside the verdict)")
                            ->delimiter(',')
                            ->allow_extra_args(false)
                            ->capture_default_str();
  app.add_option("--only", a->only, "only the problem of this name (see --reproduce strings)");
  app.add_option("--seed", a->run.seed, "base seed")->capture_default_str()->check(seed_range());
  app.add_option("--rounds", a->run.rounds, "rounds of fresh inputs per set")->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--call-timeout", a->call_timeout, "seconds a kernel call may take")->capture_default_str()->check(seconds_range(86400));
  app.add_option("--build-timeout", a->build_timeout, "seconds a submission's build (nvcc) may take")
      ->capture_default_str()
      ->check(seconds_range(86400));
  app.add_option("--load-timeout", a->load_timeout,
                 "seconds loading a submission may take (the load check without a GPU; the kernel host's start; a "
                 "solution's import, after its build's time)")
      ->capture_default_str()
      ->check(seconds_range(86400));
  app.add_flag("--no-sandbox", a->no_sandbox,
               "run the submission unconfined, with your rights (only where the box cannot be built; the report says so)");
  app.add_option("--hide", a->hide,
                 "a folder the submission's box must not see, besides the report folder, home, golden data, working "
                 "folder and the submission's own (one per --hide, repeated; a nightly hides its other reports and "
                 "submissions)")
      ->allow_extra_args(false);
  app.add_option("--golden", a->golden, "golden set checked when no GPU is present")->capture_default_str();
  app.add_flag("--ieee-subnormals", a->run.ieee_subnormals,
               "demand IEEE subnormal behaviour (by default a kernel may flush subnormal values to zero)");
  app.add_flag("--cpu-judge", a->cpu_judge,
               "make every set's inputs, reference and comparison on the CPU (by default the randn and layout sets are "
               "made and judged on the GPU, a sample of each cross-checked against the CPU)");
  app.add_flag("--beyond-axes", a->beyond_axes,
               "a solution.json: also the sets its definition's axes cannot shape (sizes head_dim does not divide), "
               "judged beyond the definition");
  app.add_flag("--require-gpu", a->require_gpu,
               "exit 4 when no GPU ran the kernel (the CPU checks still run and can fail first); also ROPE2D_REQUIRE_GPU=1");
  app.add_flag("--quick", a->run.quick, "smaller shapes (one sequence per workload)");
  app.add_flag("--bench", a->bench, "also time the submission on the 16 workloads");
  app.add_flag("--quiet", a->quiet, "no progress display");
  app.add_flag("--huge", a->huge, "also one call past 2^31 elements per dtype (about 26 GB of device memory), judged on a sample");
  app.add_flag("--sanitize", a->sanitize, "run a reduced set under compute-sanitizer (memcheck, racecheck, initcheck)");
  app.add_option("--sanitizer", a->sanitizer, "compute-sanitizer to run for --sanitize")->capture_default_str();
  app.add_flag("--sanitize-set", a->run.sanitize_set, "only the reduced set --sanitize runs")->group("");
  app.add_flag("--list", a->list, "list the selected problems (name, seed, reproduce line) and exit");
  auto mo = std::make_shared<MachineOutputs>();
  add_machine_outputs(app, *mo);
  return [a, dtypes, mo] {
    a->dtypes_given = dtypes->count() > 0;
    return run(*a, *mo);
  };
}

}  // namespace rope2d::cli
