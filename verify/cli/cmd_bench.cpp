// rope2d bench: times the project's kernel on the 16 benchmark workloads and on real layouts
// of the same shapes, beside a plain kernel and (with --torch) PyTorch eager and torch.compile,
// against the measured copy bandwidth and empty-kernel time, on two clocks (CUDA events; GPU
// kernel time from CUPTI). With --torch the torch script also runs the project's kernel from
// its shared object, interleaved with torch.compile, for a paired comparison. Tables to
// stdout, JSON to --json.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "bench_cli.hpp"
#include "commands.hpp"
#include "rope2d/rope2d_backward.h"
#include "codec/atomic_file.hpp"
#include "products/bench/bench.hpp"
#include "harness/testbed/device.hpp"
#include "products/bench/sol_score.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "harness/testbed/timing.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;

// What the workload loop gathers: per-workload rows and kernel-clock lines, and the series
// the summary's geometric means are taken over.
struct Tally {
  nlohmann::ordered_json rows = nlohmann::json::array();
  std::vector<double> t_own, ratio_floor, ratio_io, k_own, k_ratio_floor, k_ratio_io, scores;
  bool beats_compile = false, paired_beats = false;
  std::vector<std::string> kernel_lines;
};

struct Context {
  const BenchArgs& a;
  Timer& timer;
  bool clock, paired;
  TimingOptions topt;
  double copy_bw;
  Timing empty;
  const nlohmann::json& torch;
};

// Workload k on both clocks: the event table's line is printed, the kernel clock's kept.
void measure_workload(const Context& cx, std::size_t k, Tally& t) {
  const Workload& w = benchmark_workloads()[k];
  const std::int64_t n = w.batch * w.seq_len * 128;
  const double bytes = workload_bytes(w), fused_bytes = 8.0 * n;
  const DeviceInputs d(bench_problem(AngleSource::randn, w.batch, w.seq_len, 100 + k), n);
  const Timing own = time_backward(cx.timer, &rope2d_backward, d, cx.topt);
  const Timing naive = time_backward(cx.timer, &rope2d_backward_naive, d, cx.topt);
  const Timing io = time_io_floor(cx.timer, d, cx.topt);
  // Real layout of the same shape: idx_theta path against the fused path.
  const DeviceInputs l(bench_problem(AngleSource::layout, w.batch, w.seq_len, 200 + k), n);
  const Timing lay = time_backward(cx.timer, &rope2d_backward, l, cx.topt);
  const Timing fused = time_fused(cx.timer, &rope2d_backward_fused, l, cx.topt);
  const double floor_ms = std::max(bytes / cx.copy_bw * 1e3, cx.empty.event_ms);
  const double k_floor_ms = std::max(bytes / cx.copy_bw * 1e3, cx.empty.kernel_ms);
  const SolAnchors anchors = workload_anchors(k);
  const double score = sol_score(cx.clock ? own.kernel_ms : own.event_ms, anchors);
  const nlohmann::json trow = cx.a.torch ? cx.torch["workloads"][k] : nlohmann::json::object();
  const double eager = peer(trow, "eager", "event_ms"), compiled = peer(trow, "compile", "event_ms");
  t.beats_compile = t.beats_compile && own.event_ms < compiled;
  t.t_own.push_back(own.event_ms);
  t.ratio_floor.push_back(own.event_ms / floor_ms);
  t.ratio_io.push_back(own.event_ms / io.event_ms);
  t.k_own.push_back(own.kernel_ms);
  t.k_ratio_floor.push_back(own.kernel_ms / k_floor_ms);
  t.k_ratio_io.push_back(own.kernel_ms / io.kernel_ms);
  t.scores.push_back(score);
  const double tbs = bytes / (own.event_ms * 1e-3) / 1e12;
  const std::string name = fmt::format("{}x{}", w.batch, w.seq_len);
  fmt::print("{:>9} {:>10} {:>8.1f} {:>9.2f} {:>6.2f} {:>6.1f} {:>8.2f} {:>6.2f} {:>7.2f} {:>5.2f} {:>9.2f} {:>9.2f} {:>9.2f} "
             "{:>6.2f} {:>9.2f} {:>10.2f}\n",
             name, n, bytes / 1e6, own.event_ms * 1e3, tbs, 100 * bytes / (own.event_ms * 1e-3) / cx.copy_bw, floor_ms * 1e3,
             own.event_ms / floor_ms, io.event_ms * 1e3, own.event_ms / io.event_ms, naive.event_ms * 1e3, lay.event_ms * 1e3,
             fused.event_ms * 1e3, lay.event_ms / fused.event_ms, eager * 1e3, compiled * 1e3);
  // The kernel clock, and the paired comparison run by the torch script.
  std::string line = fmt::format("{:>9} {:>9.2f} {:>8.2f} {:>6.2f} {:>7.2f} {:>5.2f} {:>9.2f} {:>7.2f} {:>6.3f}", name,
                                 own.kernel_ms * 1e3, k_floor_ms * 1e3, own.kernel_ms / k_floor_ms, io.kernel_ms * 1e3,
                                 own.kernel_ms / io.kernel_ms, fused.kernel_ms * 1e3, lay.kernel_ms / fused.kernel_ms, score);
  nlohmann::ordered_json row;
  row["batch"] = w.batch;
  row["seq_len"] = w.seq_len;
  row["elements"] = n;
  row["bytes"] = bytes;
  row["rope2d_ms"] = own.event_ms;
  row["rope2d_kernel_ms"] = own.kernel_ms;
  row["tb_per_s"] = tbs;
  row["fraction_of_copy_bw"] = bytes / (own.event_ms * 1e-3) / cx.copy_bw;
  row["floor_ms"] = floor_ms;
  row["kernel_floor_ms"] = k_floor_ms;
  row["io_floor_ms"] = io.event_ms;
  row["io_floor_kernel_ms"] = io.kernel_ms;
  row["naive_ms"] = naive.event_ms;
  row["naive_kernel_ms"] = naive.kernel_ms;
  row["layout_idx_theta_ms"] = lay.event_ms;
  row["layout_fused_ms"] = fused.event_ms;
  row["layout_idx_theta_kernel_ms"] = lay.kernel_ms;
  row["layout_fused_kernel_ms"] = fused.kernel_ms;
  row["fused_bytes"] = fused_bytes;
  row["fused_speedup"] = lay.event_ms / fused.event_ms;
  if (cx.a.torch) {
    row["torch_eager_ms"] = eager;
    row["torch_compile_ms"] = compiled;
    row["torch_eager_kernel_ms"] = peer(trow, "eager", "kernel_ms");
    row["torch_compile_kernel_ms"] = peer(trow, "compile", "kernel_ms");
    line += fmt::format(" {:>9.2f}", row["torch_eager_kernel_ms"].get<double>() * 1e3);
    if (!cx.paired) line += fmt::format(" {:>9.2f}", row["torch_compile_kernel_ms"].get<double>() * 1e3);  // else below
  }
  if (cx.paired) t.paired_beats = paired_columns(trow, row, line) && t.paired_beats;
  row["sol_clock"] = cx.clock ? "kernel" : "events";
  row["sol_t_sol_ms_est"] = anchors.t_sol_ms;
  row["sol_t_b_ms_est"] = anchors.t_b_ms;
  row["sol_score_est"] = score;
  t.rows.push_back(row);
  t.kernel_lines.push_back(line);
}

nlohmann::ordered_json summarise(const Context& cx, const Tally& t) {
  const auto& last = t.rows.back();
  nlohmann::ordered_json summary;
  summary["geomean_rope2d_ms"] = geomean(t.t_own);
  summary["geomean_ratio_to_floor"] = geomean(t.ratio_floor);
  summary["geomean_ratio_to_io_floor"] = geomean(t.ratio_io);
  summary["geomean_rope2d_kernel_ms"] = geomean(t.k_own);
  summary["geomean_kernel_ratio_to_floor"] = geomean(t.k_ratio_floor);
  summary["geomean_kernel_ratio_to_io_floor"] = geomean(t.k_ratio_io);
  summary["largest_fraction_of_copy_bw"] = last["fraction_of_copy_bw"];
  summary["largest_fused_speedup"] = last["fused_speedup"];
  summary["mean_sol_score_est"] = [&] { double s = 0; for (double x : t.scores) s += x; return s / t.scores.size(); }();
  if (cx.a.torch) summary["faster_than_torch_compile_everywhere"] = t.beats_compile;
  if (cx.paired) summary["paired_faster_than_torch_compile_everywhere"] = t.paired_beats;
  return summary;
}

void print_kernel_table_and_summary(const Context& cx, const Tally& t) {
  fmt::print("\nGPU kernel time ({}); SOL_S from {}\n{:>9} {:>9} {:>8} {:>6} {:>7} {:>5} {:>9} {:>7} {:>6}", cx.timer.kernel_clock_note(),
             cx.clock ? "this clock" : "the events", "workload", "rope2d_k", "floor_k", "x_flr", "io_k", "x_io", "fused_k",
             "fused_x", "SOL_S");
  if (cx.a.torch) fmt::print(" {:>9}", "eager_k");
  if (cx.a.torch && !cx.paired) fmt::print(" {:>9}", "compile_k");
  if (cx.paired) fmt::print(" | paired: {:>9} {:>9} {:>9} {:>8} {:>6}", "rope2d_k", "compile_k", "wins", "p", "faster");
  fmt::print("\n");
  for (const std::string& line : t.kernel_lines) fmt::print("{}\n", line);
  const auto& last = t.rows.back();
  fmt::print("\ncopy bandwidth {:.3f} TB/s (read + write), empty kernel {:.2f} us events, {:.2f} us kernel\n", cx.copy_bw / 1e12,
             cx.empty.event_ms * 1e3, cx.empty.kernel_ms * 1e3);
  fmt::print("geomean rope2d {:.2f} us events, {:.2f} us kernel; geomean ratio to floor {:.3f} events, {:.3f} kernel "
             "(target <= 1.2); to the I/O-only kernel {:.3f} events, {:.3f} kernel\n",
             geomean(t.t_own) * 1e3, geomean(t.k_own) * 1e3, geomean(t.ratio_floor), geomean(t.k_ratio_floor), geomean(t.ratio_io),
             geomean(t.k_ratio_io));
  fmt::print("largest workload at {:.1f}% of copy bandwidth (target >= 95%); fused speedup {:.2f}x (target >= 1.4)\n",
             100 * last["fraction_of_copy_bw"].get<double>(), last["fused_speedup"].get<double>());
  if (cx.a.torch) fmt::print("faster than torch.compile on every workload, medians of events: {}\n", t.beats_compile ? "yes" : "NO");
  if (cx.paired)
    fmt::print("faster than torch.compile on every workload, paired runs, sign test p < 0.01: {}\n", t.paired_beats ? "yes" : "NO");
  else if (cx.a.torch)
    fmt::print("no paired comparison: librope2d_kernel.so not found (give --library)\n");
}

void write_json(const Context& cx, const DeviceInfo& dev, const Tally& t, const nlohmann::ordered_json& variants) {
  const BenchArgs& a = cx.a;
  nlohmann::ordered_json j;
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["date"] = date;
  j["device"] = dev.name;
  j["driver_version"] = dev.driver_version;
  j["runtime_version"] = dev.runtime_version;
  j["method"] = fmt::format("two clocks per run: CUDA events around the call (*_ms) and the GPU time of its kernels "
                            "from CUPTI ({}; *_kernel_ms); L2 flushed before each run, inputs rotated over {} shifted "
                            "addresses, median of {} runs after {} warm-up; bf16 grads",
                            cx.timer.kernel_clock_note(), bench_shifts, a.runs, a.warmup);
  j["copy_bandwidth_bytes_per_s"] = cx.copy_bw;
  j["empty_kernel_ms"] = cx.empty.event_ms;
  j["empty_kernel_kernel_ms"] = cx.empty.kernel_ms;
  j["io_floor"] = "io_floor_ms: a kernel with the op's loads and store and a sum in place of sin/cos, timed the same way";
  if (a.torch) j["torch"] = {{"version", cx.torch["torch"]}, {"device", cx.torch["device"]}};
  j["summary"] = summarise(cx, t);
  j["workloads"] = t.rows;
  if (a.variants) j["variants"] = variants;
  write_file_atomic(a.json_path, {j.dump(2), "\n"});
  std::cout << "wrote " << a.json_path << "\n";
}

int run(BenchArgs a) {
  if (!a.json_path.empty()) require_output_file(a.json_path, "--json");  // before anything is timed
  const DeviceInfo dev = probe_device();
  if (!dev.available) {
    std::cout << "rope2d bench: SKIPPED: " << dev.reason << " (nothing to time without a GPU)\n";
    return Exit::ok;
  }
  Timer timer;
  const bool clock = timer.has_kernel_clock();
  const double copy_bw = timer.copy_bandwidth_bytes_per_s();
  const Timing empty = timer.empty_kernel();
  if (a.torch && a.library.empty()) a.library = find_kernel_library();
  nlohmann::json torch;
  if (a.torch) torch = run_torch(a);
  const bool paired = a.torch && !a.library.empty();
  const Context cx{a, timer, clock, paired, TimingOptions{a.warmup, a.runs}, copy_bw, empty, torch};

  // Two floors per workload, one per clock: max(bytes / copy bandwidth, empty kernel).
  Tally t;
  t.beats_compile = a.torch;
  t.paired_beats = paired;
  fmt::print("CUDA events around each call\n{:>9} {:>10} {:>8} {:>9} {:>6} {:>6} {:>8} {:>6} {:>7} {:>5} {:>9} {:>9} {:>9} {:>6} "
             "{:>9} {:>10}\n",
             "workload", "elements", "MB", "rope2d_us", "TB/s", "%copy", "floor_us", "x_flr", "io_us", "x_io", "naive_us",
             "lay_idx", "lay_fused", "fused_x", "eager_us", "compile_us");
  for (std::size_t k = 0; k < benchmark_workloads().size(); ++k) measure_workload(cx, k, t);
  print_kernel_table_and_summary(cx, t);
  const nlohmann::ordered_json variants = a.variants ? time_variants(cx.timer, cx.clock, cx.topt) : nlohmann::ordered_json::array();
  if (!a.json_path.empty()) write_json(cx, dev, t, variants);
  return Exit::ok;
}

}  // namespace

Action add_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  app.add_option("--json", a->json_path, "write the figures as JSON here");
  app.add_flag("--variants", a->variants, "also time each kernel configuration (elements per thread, approx sin/cos)");
  app.add_flag("--torch", a->torch, "also time PyTorch eager and torch.compile (needs python3 with torch)");
  app.add_option("--python", a->python, "python interpreter for --torch")->capture_default_str();
  app.add_option("--library", a->library,
                 "librope2d_kernel.so for the paired comparison with torch.compile (default: beside the program, or "
                 "the build tree's cuda/)");
  app.add_option("--runs", a->runs, "timed runs per measurement")->capture_default_str()->check(CLI::Range(1, 10000));
  app.add_option("--warmup", a->warmup, "warm-up runs")->capture_default_str()->check(CLI::Range(0, 10000));
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
