// The subcommands of the rope2d program; each lives in its own cmd_*.cpp and registers its
// options on the CLI11 app, returning the action to run when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace rope2d::cli {

// Exit codes shared by every subcommand.
// no_gpu: `verify --require-gpu` (or ROPE2D_REQUIRE_GPU=1) found no GPU to run the kernel on.
enum Exit : int { ok = 0, incorrect = 1, usage = 2, submission_failed = 3, no_gpu = 4 };

using Action = std::function<int()>;

// A file of the project by its path in the repository (the golden set, the worst-case lists, a
// script, the ABI headers), looked up beside the program only, never in the working directory
// (a folder planted there, reference/worst/ say, must not change what is judged or run). An
// installed program (<prefix>/bin/rope2d) finds its own copy under <prefix>/share/rope2d/<rel>,
// <prefix> from the program's location (/proc/self/exe); a program in a build tree, the source
// tree it was configured from.
inline std::string repo_file(const std::string& rel) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "rope2d" / rel;
    if (fs::exists(installed, ec)) return installed.string();
  }
  return (fs::path(ROPE2D_SOURCE_DIR) / rel).string();
}

// The command that runs a module of the Python package rope2d (`python3 -m rope2d.runner`, say)
// from the verifier's own copy of the package (repo_file("python"): <prefix>/share/rope2d/python,
// or the source tree's python/): that folder first on sys.path and the working folder not on it,
// so that neither a rope2d planted in the current folder nor another installed version runs.
inline std::vector<std::string> python_module_command(const std::string& python, const std::string& module) {
  return {python, "-c",
          "import runpy, sys; d = sys.argv.pop(1); sys.path[:] = [d] + [p for p in sys.path if p]; "
          "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)",
          repo_file("python"), module};
}

Action add_eval(CLI::App& app);
Action add_layout(CLI::App& app);
Action add_golden(CLI::App& app);
Action add_check(CLI::App& app);
Action add_verify(CLI::App& app);
Action add_nightly(CLI::App& app);
Action add_report(CLI::App& app);
Action add_sweep(CLI::App& app);
Action add_schema(CLI::App& app);
#ifdef ROPE2D_HAVE_CUDA
Action add_bench(CLI::App& app);
#endif

}  // namespace rope2d::cli
