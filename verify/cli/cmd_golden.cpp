// rope2d golden --suite NAME | --layout FILE  --out DIR [--grad-dtypes ...] [--seed N]
// [--solexecbench-paths relative|absolute]: generates a golden set with its manifest and a
// SOL-ExecBench problem directory.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "codec/input.hpp"
#include "codec/shell_text.hpp"
#include "rope2d/ref/layout.hpp"
#include "codec/atomic_file.hpp"
#include "rope2d/verify/codec/golden.hpp"
#include "codec/layout_json.hpp"
#include "rope2d/verify/judge/suites.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;

struct GoldenArgs {
  std::string suite = "smoke", layout_file, out, sol_paths = "relative";
  std::vector<std::string> dtypes{"bf16"};
  std::uint64_t seed = 1;
  bool quiet = false, force = false;
  std::string command_line;
};

int run(const GoldenArgs& a) {
  verify::require_output_folder(a.out, "--out");  // before any problem is made
  SuiteOptions o;
  o.seed = a.seed;
  o.grad_dtypes = parse_grad_dtypes(a.dtypes, "--grad-dtypes");
  for (std::size_t i = 0; i < a.dtypes.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (a.dtypes[i] == a.dtypes[k])
        verify::bad_input("--grad-dtypes", "", "each dtype once", "'" + a.dtypes[i] + "' twice");
  std::vector<ProblemSpec> specs;
  if (!a.layout_file.empty()) {
    const ref::Layout layout = verify::read_layout_file(a.layout_file);
    for (ref::Dtype d : o.grad_dtypes) {
      ProblemSpec p;
      p.set = "layout";
      p.source = AngleSource::layout;
      p.grad_dtype = d;
      p.batch = static_cast<std::int64_t>(layout.batch.size());
      p.seq_len = layout.seq_len();
      p.head_dim = layout.rope.head_dim;
      p.seed = a.seed;
      p.layout = layout;
      specs.push_back(p);
    }
  } else {
    specs = suite_named(a.suite, "--suite").make(o);
  }
  Progress progress(a.quiet);
  write_golden(a.out, specs, a.command_line, [&](std::size_t i, std::size_t n, const std::string& name) { progress.step(i, n, name); },
               a.force, a.sol_paths == "absolute" ? SolPaths::absolute : SolPaths::relative);
  progress.done();
  std::int64_t elements = 0;
  for (const auto& s : specs) elements += s.n();
  std::cout << fmt::format("wrote {} problems ({} elements) to {} in {:.1f} s\n", specs.size(), elements, a.out, progress.seconds());
  return Exit::ok;
}

}  // namespace

Action add_golden(CLI::App& app) {
  auto a = std::make_shared<GoldenArgs>();
  std::string suites;
  for (const NamedSuite& n : named_suites()) suites += (suites.empty() ? "" : ", ") + std::string(n.name) + " (" + std::string(n.what) + ")";
  app.add_option("--suite", a->suite, suites)
      ->capture_default_str();
  app.add_option("--layout", a->layout_file, "one problem from this layout file instead of a suite");
  app.add_option("--out", a->out, "directory to write")->required();
  app.add_option("--grad-dtypes", a->dtypes, "grad dtypes (" + ref::grad_dtype_names(", ") + ")")->delimiter(',')->capture_default_str();
  app.add_option("--seed", a->seed, "base seed")->capture_default_str()->check(seed_range());
  app.add_flag("--quiet", a->quiet, "no progress display");
  app.add_flag("--force", a->force, "replace the contents of a non-empty --out folder");
  app.add_option("--solexecbench-paths", a->sol_paths,
                 "safetensors paths in solexecbench/workload.jsonl: relative (to the set; run SOL-ExecBench with "
                 "FLASHINFER_TRACE_DIR=<the set>) or absolute (the set's location)")
      ->capture_default_str()->check(CLI::IsMember({"relative", "absolute"}));
  CLI::Option* suite = app.get_option("--suite");
  return [a, &app, suite] {
    if (!a->layout_file.empty() && suite->count() > 0)
      throw std::invalid_argument("--suite: not with --layout (one problem set at a time)");
    // The exact command, for the manifest: options as parsed, in a fixed order.
    // Shell-quoted where needed, so it can be pasted.
    a->command_line = verify::shell_join({"rope2d", "golden", a->layout_file.empty() ? "--suite" : "--layout",
                                          a->layout_file.empty() ? a->suite : a->layout_file, "--out", a->out, "--grad-dtypes",
                                          fmt::format("{}", fmt::join(a->dtypes, ",")), "--seed", std::to_string(a->seed)});
    if (a->sol_paths == "absolute") a->command_line += " --solexecbench-paths absolute";
    return run(*a);
  };
}

}  // namespace rope2d::cli
