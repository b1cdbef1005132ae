// The PyTorch peers of `rope2d bench --torch` (the package's rope2d.bench_torch, run as a child
// process) and the paired comparison of the project's kernel with torch.compile (bench_cli.hpp).
#include <fmt/format.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "bench_cli.hpp"
#include "commands.hpp"
#include "codec/bench_torch.hpp"
#include "codec/shell_text.hpp"
#include "harness/spawn.hpp"
#include "rope2d/verify/judge/suites.hpp"

namespace rope2d::cli {

using namespace rope2d::verify;

std::string find_kernel_library() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const auto& p : {exe.parent_path() / "librope2d_kernel.so", exe.parent_path().parent_path() / "cuda/librope2d_kernel.so",
                       exe.parent_path().parent_path() / "lib/librope2d_kernel.so"})
    if (std::filesystem::exists(p)) return p.string();
  return {};
}

namespace {

// The command of the torch peers: the interpreter (--python: a path, or a name looked up on
// PATH as the verify worker does) running the package's module rope2d.bench_torch, each checked
// before anything runs, so a failure names what is missing.
std::vector<std::string> torch_peers_command(const BenchArgs& a) {
  std::string python = a.python;
  if (python.find('/') == std::string::npos) {
    python = find_program(a.python);
    if (python.empty()) {
      const char* path = std::getenv("PATH");
      throw std::runtime_error(fmt::format("--torch: '{}' not found on PATH ({}); --python names the interpreter", a.python,
                                           path ? path : "unset"));
    }
  }
  const std::string module = repo_file("python/rope2d/bench_torch.py");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(module, ec))
    throw std::runtime_error("--torch: the torch peers' module " + module +
                             " is missing (looked up beside the program: <prefix>/share/rope2d/, else the source tree)");
  return python_module_command(python, "rope2d.bench_torch");
}

}  // namespace

nlohmann::json run_torch(const BenchArgs& a) {
  std::vector<std::string> workloads;
  for (const Workload& w : benchmark_workloads()) workloads.push_back(fmt::format("{}x{}", w.batch, w.seq_len));
  std::string list;
  for (const std::string& w : workloads) list += (list.empty() ? "" : ",") + w;
  std::vector<std::string> argv = torch_peers_command(a);
  argv.insert(argv.end(), {"--workloads", list, "--runs", std::to_string(a.runs), "--warmup", std::to_string(a.warmup)});
  if (!a.library.empty()) argv.insert(argv.end(), {"--library", a.library});
  std::string text;
  // Its progress lines go to our stderr as they come (inherited, never reopened by a name:
  // spawn.hpp's ChildStderr); its JSON to stdout.
  const SpawnResult r = run_program(argv, ChildStderr::inherited(), [&](const char* d, std::size_t n) { text.append(d, n); });
  if (!r.started) throw std::runtime_error("cannot run " + verify::shell_join(argv) + ": " + r.start_error);
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
    throw std::runtime_error("torch peers failed (" + r.exit_text() + "): " + verify::shell_join(argv));
  // Through the one reader: its schema, then one row per workload asked for, in order.
  return read_bench_torch(text, "the output of python3 -m rope2d.bench_torch", workloads, !a.library.empty());
}

double peer(const nlohmann::json& row, const char* impl, const char* clock) {
  return row.contains(impl) && row[impl][clock].is_number() ? row[impl][clock].get<double>() : NAN;
}

bool paired_columns(const nlohmann::json& trow, nlohmann::ordered_json& row, std::string& line) {
  row["paired"] = trow;
  // rope2d is faster when the sign test over the pairs of kernel times (events where
  // there is no kernel clock) rejects "neither is faster" at the 1% level.
  const nlohmann::json& st = trow.contains("paired_kernel") ? trow["paired_kernel"] : trow["paired_events"];
  const bool faster = st["p"].get<double>() < 0.01;
  line += fmt::format(" {:>9.2f} {:>9.2f} {:>4}/{:<4} {:>8.1e} {:>6}", peer(trow, "rope2d", "kernel_ms") * 1e3,
                      peer(trow, "compile", "kernel_ms") * 1e3, st["wins"].get<int>(),
                      st["wins"].get<int>() + st["losses"].get<int>(), st["p"].get<double>(), faster ? "yes" : "NO");
  return faster;
}

}  // namespace rope2d::cli
