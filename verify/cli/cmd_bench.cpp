// rope2d bench: times the project's kernel on the 16 benchmark workloads and on real layouts
// of the same shapes, beside a plain kernel and (with --torch) PyTorch eager and torch.compile,
// against the measured copy bandwidth and empty-kernel time. Table to stdout, JSON to --json.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/rope2d_tuning.h"
#include "rope2d/verify/bench.hpp"
#include "rope2d/verify/device.hpp"
#include "rope2d/verify/sol_score.hpp"
#include "rope2d/verify/suites.hpp"
#include "rope2d/verify/timing.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;

struct BenchArgs {
  std::string json_path;
  bool torch = false;
  bool variants = false;
  std::string python = "python3";
  int runs = 50, warmup = 10;
};

nlohmann::json run_torch(const BenchArgs& a) {
  std::string list;
  for (const Workload& w : benchmark_workloads()) list += (list.empty() ? "" : ",") + fmt::format("{}x{}", w.batch, w.seq_len);
  const std::string script = repo_file("verify/python/bench_torch.py");
  const std::string cmd = fmt::format("{} {} --workloads {} --runs {} --warmup {}", a.python, script, list, a.runs, a.warmup);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::string text;
  std::array<char, 4096> buf;
  while (std::size_t k = fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), k);
  if (pclose(p) != 0) throw std::runtime_error("torch peers failed: " + cmd);
  return nlohmann::json::parse(text);
}

int run(const BenchArgs& a) {
  const DeviceInfo dev = probe_device();
  if (!dev.available) {
    std::cout << "rope2d bench: SKIPPED: " << dev.reason << " (nothing to time without a GPU)\n";
    return Exit::ok;
  }
  Timer timer;
  const TimingOptions topt{a.warmup, a.runs};
  const double copy_bw = timer.copy_bandwidth_bytes_per_s();
  const double empty_ms = timer.empty_kernel_ms();
  nlohmann::json torch;
  if (a.torch) torch = run_torch(a);

  const auto& ws = benchmark_workloads();
  std::vector<double> bytes_all;
  for (const Workload& w : ws) bytes_all.push_back(12.0 * w.batch * w.seq_len * 128);
  const double gm_bytes = geomean(bytes_all);

  nlohmann::ordered_json rows = nlohmann::json::array();
  std::vector<double> t_own, ratio_floor, ratio_io, scores;
  bool beats_compile = a.torch;
  fmt::print("{:>9} {:>10} {:>8} {:>9} {:>6} {:>6} {:>8} {:>6} {:>7} {:>5} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>6}\n",
             "workload", "elements", "MB", "rope2d_us", "TB/s", "%copy", "floor_us", "x_flr", "io_us", "x_io", "naive_us",
             "lay_idx", "lay_fused", "fused_x", "eager_us", "compile_us", "SOL_S");
  for (std::size_t k = 0; k < ws.size(); ++k) {
    const Workload& w = ws[k];
    const std::int64_t n = w.batch * w.seq_len * 128;
    const double bytes = 12.0 * n, fused_bytes = 8.0 * n;
    const Problem rp = bench_problem(AngleSource::randn, w.batch, w.seq_len, 100 + k);
    const DeviceInputs d(rp, n);
    const double t = time_backward(timer, &rope2d_backward, d, topt);
    const double t_naive = time_backward(timer, &rope2d_backward_naive, d, topt);
    const double t_io = time_io_floor(timer, d, topt);
    // Real layout of the same shape: idx_theta path against the fused path.
    const Problem lp = bench_problem(AngleSource::layout, w.batch, w.seq_len, 200 + k);
    const DeviceInputs l(lp, n);
    const double t_lay = time_backward(timer, &rope2d_backward, l, topt);
    const double t_fused = time_fused(timer, &rope2d_backward_fused, l, topt);
    const double floor_ms = std::max(bytes / copy_bw * 1e3, empty_ms);
    const SolAnchors anchors = sol_anchors(bytes, gm_bytes);
    const double score = sol_score(t, anchors);
    double eager = NAN, compiled = NAN;
    if (a.torch) {
      eager = torch["eager_ms"][k].get<double>();
      compiled = torch["compile_ms"][k].get<double>();
      beats_compile = beats_compile && t < compiled;
    }
    t_own.push_back(t);
    ratio_floor.push_back(t / floor_ms);
    ratio_io.push_back(t / t_io);
    scores.push_back(score);
    const double tbs = bytes / (t * 1e-3) / 1e12;
    fmt::print("{:>9} {:>10} {:>8.1f} {:>9.2f} {:>6.2f} {:>6.1f} {:>8.2f} {:>6.2f} {:>7.2f} {:>5.2f} {:>9.2f} {:>9.2f} {:>9.2f} "
               "{:>6.2f} {:>9.2f} {:>9.2f} {:>6.3f}\n",
               fmt::format("{}x{}", w.batch, w.seq_len), n, bytes / 1e6, t * 1e3, tbs, 100 * bytes / (t * 1e-3) / copy_bw,
               floor_ms * 1e3, t / floor_ms, t_io * 1e3, t / t_io, t_naive * 1e3, t_lay * 1e3, t_fused * 1e3,
               t_lay / t_fused, eager * 1e3, compiled * 1e3, score);
    nlohmann::ordered_json row;
    row["batch"] = w.batch;
    row["seq_len"] = w.seq_len;
    row["elements"] = n;
    row["bytes"] = bytes;
    row["rope2d_ms"] = t;
    row["tb_per_s"] = tbs;
    row["fraction_of_copy_bw"] = bytes / (t * 1e-3) / copy_bw;
    row["floor_ms"] = floor_ms;
    row["io_floor_ms"] = t_io;
    row["naive_ms"] = t_naive;
    row["layout_idx_theta_ms"] = t_lay;
    row["layout_fused_ms"] = t_fused;
    row["fused_bytes"] = fused_bytes;
    row["fused_speedup"] = t_lay / t_fused;
    if (a.torch) {
      row["torch_eager_ms"] = eager;
      row["torch_compile_ms"] = compiled;
    }
    row["sol_t_sol_ms_est"] = anchors.t_sol_ms;
    row["sol_t_b_ms_est"] = anchors.t_b_ms;
    row["sol_score_est"] = score;
    rows.push_back(row);
  }
  const auto& last = rows.back();
  nlohmann::ordered_json summary;
  summary["geomean_rope2d_ms"] = geomean(t_own);
  summary["geomean_ratio_to_floor"] = geomean(ratio_floor);
  summary["geomean_ratio_to_io_floor"] = geomean(ratio_io);
  summary["largest_fraction_of_copy_bw"] = last["fraction_of_copy_bw"];
  summary["largest_fused_speedup"] = last["fused_speedup"];
  summary["mean_sol_score_est"] = [&] { double s = 0; for (double x : scores) s += x; return s / scores.size(); }();
  if (a.torch) summary["faster_than_torch_compile_everywhere"] = beats_compile;
  fmt::print("\ncopy bandwidth {:.3f} TB/s (read + write), empty kernel {:.2f} us\n", copy_bw / 1e12, empty_ms * 1e3);
  fmt::print("geomean rope2d {:.2f} us; geomean ratio to floor {:.3f} (target <= 1.2); to the I/O-only kernel {:.3f}\n",
             geomean(t_own) * 1e3, geomean(ratio_floor), geomean(ratio_io));
  fmt::print("largest workload at {:.1f}% of copy bandwidth (target >= 95%); fused speedup {:.2f}x (target >= 1.4)\n",
             100 * last["fraction_of_copy_bw"].get<double>(), last["fused_speedup"].get<double>());
  if (a.torch) fmt::print("faster than torch.compile on every workload: {}\n", beats_compile ? "yes" : "NO");
  nlohmann::ordered_json variant_rows = nlohmann::json::array();
  if (a.variants) {
    // Configurations of the idx_theta kernel; "approx" uses __sinf/__cosf (inaccurate: it only
    // shows how much of the time the accurate sincosf costs).
    struct Config {
      const char* name;
      int v, tpb, flags;
    };
    const Config configs[] = {{"v4", 4, 256, 0},
                              {"v4plain", 4, 256, ROPE2D_TUNE_PLAIN_CACHE},
                              {"v8plain", 8, 256, ROPE2D_TUNE_PLAIN_CACHE},
                              {"v4plain_128", 4, 128, ROPE2D_TUNE_PLAIN_CACHE},
                              {"v4plain_512", 4, 512, ROPE2D_TUNE_PLAIN_CACHE},
                              {"v4approx", 4, 256, ROPE2D_TUNE_APPROX}};
    std::string head = fmt::format("\n{:>9}", "workload");
    for (const Config& c : configs) head += fmt::format(" {:>10}", c.name);
    head += fmt::format(" {:>10} {:>10}", "fused", "fusedplain");
    fmt::print("{}  (us; vN: N elements per thread, _T: T threads per block, default 256; fused on a layout)\n", head);
    // The 16 workloads, then sizes between the two largest, where the best cache policy changes.
    std::vector<Workload> shapes = ws;
    for (std::int64_t b : {12, 16, 24, 32, 48}) shapes.push_back({b, 8192});
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const Workload& w = shapes[k];
      const std::int64_t n = w.batch * w.seq_len * 128;
      const Problem rp = bench_problem(AngleSource::randn, w.batch, w.seq_len, 300 + k);
      const DeviceInputs d(rp, n);
      const Problem lp = bench_problem(AngleSource::layout, w.batch, w.seq_len, 400 + k);
      const DeviceInputs l(lp, n);
      nlohmann::ordered_json row;
      row["batch"] = w.batch;
      row["seq_len"] = w.seq_len;
      std::string line = fmt::format("{:>9}", fmt::format("{}x{}", w.batch, w.seq_len));
      for (const Config& c : configs) {
        const double t = time_backward(timer, [&](auto... x) { return rope2d_backward_config(x..., c.v, c.tpb, c.flags); },
                                       d, topt);
        row[std::string(c.name) + "_ms"] = t;
        line += fmt::format(" {:>10.2f}", t * 1e3);
      }
      for (const int flags : {0, int{ROPE2D_TUNE_PLAIN_CACHE}}) {
        const double t = time_fused(timer, [&](auto... x) { return rope2d_backward_fused_config(x..., flags); }, l, topt);
        row[flags ? "fused_plain_ms" : "fused_ms"] = t;
        line += fmt::format(" {:>10.2f}", t * 1e3);
      }
      variant_rows.push_back(row);
      fmt::print("{}\n", line);
    }
  }
  if (!a.json_path.empty()) {
    nlohmann::ordered_json j;
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    j["date"] = date;
    j["device"] = dev.name;
    j["driver_version"] = dev.driver_version;
    j["runtime_version"] = dev.runtime_version;
    j["method"] = fmt::format("CUDA events around the kernel, L2 flushed before each run, inputs rotated over {} shifted "
                              "addresses, median of {} runs after {} warm-up; bf16 grads",
                              bench_shifts, a.runs, a.warmup);
    j["copy_bandwidth_bytes_per_s"] = copy_bw;
    j["empty_kernel_ms"] = empty_ms;
    j["io_floor"] = "io_floor_ms: a kernel with the op's loads and store and a sum in place of sin/cos, timed the same way";
    if (a.torch) j["torch"] = {{"version", torch["torch"]}, {"device", torch["device"]}};
    j["summary"] = summary;
    j["workloads"] = rows;
    if (a.variants) j["variants"] = variant_rows;
    const std::string tmp = a.json_path + ".tmp";
    std::ofstream(tmp) << j.dump(2) << "\n";
    std::rename(tmp.c_str(), a.json_path.c_str());
    std::cout << "wrote " << a.json_path << "\n";
  }
  return Exit::ok;
}

}  // namespace

Action add_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  app.add_option("--json", a->json_path, "write the figures as JSON here");
  app.add_flag("--variants", a->variants, "also time each kernel configuration (elements per thread, approx sin/cos)");
  app.add_flag("--torch", a->torch, "also time PyTorch eager and torch.compile (needs python3 with torch)");
  app.add_option("--python", a->python, "python interpreter for --torch")->capture_default_str();
  app.add_option("--runs", a->runs, "timed runs per measurement")->capture_default_str()->check(CLI::Range(1, 10000));
  app.add_option("--warmup", a->warmup, "warm-up runs")->capture_default_str()->check(CLI::Range(0, 10000));
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
