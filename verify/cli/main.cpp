// rope2d: the command-line program of the suite. One subcommand per job; bad input and
// environment problems exit 2 with a message naming the problem.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>
#include <iostream>
#include <map>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "version.hpp"
#include "rope2d/verify/codec/golden.hpp"

namespace {

// Levenshtein distance, for "did you mean": a typo of a subcommand or option is answered with
// the nearest name when it is at most a third of the word away.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_d = word.size() / 3 + 1;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best;
}

// The long option names of a subcommand and of the program ("--name").
std::vector<std::string> long_options(const CLI::App& app, const CLI::App* sub) {
  std::vector<std::string> out;
  for (const CLI::App* a : {&app, sub})
    if (a)
      for (const CLI::Option* o : a->get_options())
        for (const std::string& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}

// An example for each subcommand's --help.
const std::map<std::string, std::string>& examples() {
  static const std::map<std::string, std::string> e = {
      {"eval", "rope2d eval 0x1.8p+0 -0.75 3 --grad-dtype bf16"},
      {"layout", "rope2d layout --seed 3 --batch 2 --seq-len 5000 --svg layout.svg"},
      {"verify", "rope2d verify kernel.cu --quick --out reports/verify/mine"},
      {"nightly", "rope2d nightly --config nightly.json --out reports/nightly"},
      {"report", "rope2d report reports/verify/mine --out /tmp/again"},
      {"golden", "rope2d golden --suite benchmark --out /tmp/golden"},
      {"check", "rope2d check --golden data/golden-smoke --outputs out.safetensors"},
      {"schema", "rope2d schema report reports/verify/mine/report.json"},
      {"sweep", "rope2d sweep kernel.cu --range 0x3f800000:0x40000000 --out /tmp/sweep"},
      {"bench", "rope2d bench --json bench.json"},
  };
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rope2d::cli;
  CLI::App app{"rope2d: reference and verification suite for the batched 2D RoPE backward"};
  app.require_subcommand(1);
  // One version for the program, the C API and the Python package (cmake/version.cmake).
  app.set_version_flag("--version", std::string("rope2d ") + version(), "print the version (semantic version + commit) and exit");
  app.failure_message([](const CLI::App* a, const CLI::Error& e) { return "rope2d: " + CLI::FailureMessage::simple(a, e); });
  std::map<CLI::App*, Action> actions;
  auto add = [&](auto adder, const char* name, const char* help) {
    CLI::App* sub = app.add_subcommand(name, help);
    actions[sub] = adder(*sub);
    if (const auto it = examples().find(name); it != examples().end()) {
      const std::string own = sub->get_footer();
      sub->footer(own + (own.empty() ? "" : "\n\n") + "Example:\n  " + it->second);
    }
  };
  add(add_eval, "eval", "exact backward of one element, correctly rounded to each dtype");
  add(add_layout, "layout", "describe a position layout (file or seed): positions and angle ranges");
  add(add_verify, "verify", "verify a kernel submission (.cu or .so; none: this project's kernel) and write a report");
  add(add_nightly, "nightly", "nightly correctness run: verifier on every kernel, exhaustive angle sweep, regressions");
  add(add_report, "report", "draw a report folder again from its report.json (Markdown, JUnit, plots)");
  add(add_golden, "golden", "generate golden test data (safetensors + manifest) from a suite or a layout");
  add(add_check, "check", "judge output files against a golden set, or check a golden set against the reference");
  add(add_schema, "schema", "check JSON files (report.json, shards, summaries, manifests, ...) against the verifier's schemas");
  add(add_sweep, "sweep", "every float32 angle bit pattern (or a range, or a shard) through a kernel, judged on the GPU");
#ifdef ROPE2D_HAVE_CUDA
  add(add_bench, "bench", "time the kernel on the 16 workloads and real layouts against its peers (GPU)");
#endif
  // A first word that names no subcommand is refused by name, with the list.
  std::string names;
  std::vector<std::string> name_list;
  CLI::App* chosen = nullptr;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    name_list.push_back(sub->get_name());
    if (argc > 1 && sub->check_name(argv[1])) chosen = sub;
  }
  if (argc > 1 && argv[1][0] != '-' && !chosen) {
    const std::string guess = nearest(argv[1], name_list);
    std::cerr << "rope2d: unknown subcommand '" << std::string(argv[1]).substr(0, 60) << "'"
              << (guess.empty() ? "" : "; did you mean '" + guess + "'?") << " One of: " << names << " (rope2d --help)\n";
    return Exit::usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    if (code != 0 && dynamic_cast<const CLI::ExtrasError*>(&e)) {
      // An unknown option: name the nearest one the subcommand has.
      const std::vector<std::string> known = long_options(app, chosen);
      for (int i = 2; i < argc; ++i) {
        const std::string word = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
        if (word.rfind("--", 0) != 0 || std::find(known.begin(), known.end(), word) != known.end()) continue;
        if (const std::string guess = nearest(word, known); !guess.empty())
          std::cerr << "rope2d: did you mean '" << guess << "' for '" << word.substr(0, 60) << "'?\n";
      }
    }
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
