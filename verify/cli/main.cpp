// rope2d: the command-line program of the suite. One subcommand per job; bad input and
// environment problems exit 2 with a message naming the problem.
#include <exception>
#include <filesystem>
#include <new>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "rope2d/verify/golden.hpp"

int main(int argc, char** argv) {
  using namespace rope2d::cli;
  CLI::App app{"rope2d: reference and verification suite for the batched 2D RoPE backward"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rope2d " + rope2d::verify::generator_version(), "print the generator version and exit");
  std::map<CLI::App*, Action> actions;
  auto add = [&](auto adder, const char* name, const char* help) {
    CLI::App* sub = app.add_subcommand(name, help);
    actions[sub] = adder(*sub);
  };
  add(add_eval, "eval", "exact backward of one element, correctly rounded to each dtype");
  add(add_layout, "layout", "describe a position layout (file or seed): positions and angle ranges");
  add(add_verify, "verify", "verify a kernel submission (.cu or .so; none: this project's kernel) and write a report");
  add(add_nightly, "nightly", "nightly correctness run: verifier on every kernel, exhaustive angle sweep, regressions");
  add(add_report, "report", "draw a report folder again from its report.json (Markdown, JUnit, plots)");
  add(add_golden, "golden", "generate golden test data (safetensors + manifest) from a suite or a layout");
  add(add_check, "check", "judge output files against a golden set, or check a golden set against the reference");
  add(add_sweep, "sweep", "every float32 angle bit pattern (or a range, or a shard) through a kernel, judged on the GPU");
#ifdef ROPE2D_HAVE_CUDA
  add(add_bench, "bench", "time the kernel on the 16 workloads and real layouts against its peers (GPU)");
#endif
  // A first word that names no subcommand is refused by name, with the list.
  std::string names;
  bool known = false;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->check_name(argv[1]));
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "rope2d: unknown subcommand '" << argv[1] << "'; one of: " << names << " (rope2d --help)\n";
    return Exit::usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? Exit::ok : Exit::usage;
  }
  // A submission that fails to build, load or run is a value each subcommand turns into exit 3;
  // what reaches here is bad input or the environment (unreadable or unwritable files, a
  // declared size too large for memory): exit 2, with the message naming file and field.
  try {
    for (CLI::App* sub : app.get_subcommands()) return actions.at(sub)();
  } catch (const std::bad_alloc&) {
    std::cerr << "rope2d: out of memory (a declared size larger than this machine can hold?)\n";
    return Exit::usage;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "rope2d: " << e.path1().string() << ": " << e.code().message() << " (" << e.what() << ")\n";
    return Exit::usage;
  } catch (const std::exception& e) {
    std::cerr << "rope2d: " << e.what() << "\n";
    return Exit::usage;
  }
  return Exit::usage;
}
