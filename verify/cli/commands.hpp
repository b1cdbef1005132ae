// The subcommands of the rope2d program; each lives in its own cmd_*.cpp and registers its
// options on the CLI11 app, returning the action to run when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>

namespace rope2d::cli {

// Exit codes shared by every subcommand.
// no_gpu: `verify --require-gpu` (or ROPE2D_REQUIRE_GPU=1) found no GPU to run the kernel on.
enum Exit : int { ok = 0, incorrect = 1, usage = 2, submission_failed = 3, no_gpu = 4 };

using Action = std::function<int()>;

// A file of the repository (a script, the ABI headers): from the working directory when it is a
// checkout, else from the source tree the program was built from.
inline std::string repo_file(const std::string& rel) {
  return std::filesystem::exists(rel) ? std::filesystem::absolute(rel).string() : std::string(ROPE2D_SOURCE_DIR) + "/" + rel;
}

Action add_eval(CLI::App& app);
Action add_layout(CLI::App& app);
Action add_golden(CLI::App& app);
Action add_check(CLI::App& app);
Action add_verify(CLI::App& app);
Action add_nightly(CLI::App& app);
Action add_report(CLI::App& app);
Action add_sweep(CLI::App& app);
#ifdef ROPE2D_HAVE_CUDA
Action add_bench(CLI::App& app);
#endif

}  // namespace rope2d::cli
