// `rope2d bench --variants`: the idx_theta kernel's configurations (elements per thread,
// threads per block, cache policy, the approximate sincos) and the fused kernel timed on the
// workloads and the sizes between the two largest (bench_cli.hpp).
#include <fmt/format.h>

#include "bench_cli.hpp"
#include "rope2d/rope2d_backward.h"
#include "rope2d/rope2d_tuning.h"
#include "products/bench/bench.hpp"
#include "rope2d/verify/judge/suites.hpp"

namespace rope2d::cli {

using namespace rope2d::verify;

// "approx" uses __sinf/__cosf (inaccurate: it only shows how much of the time the accurate
// sincosf costs).
nlohmann::ordered_json time_variants(Timer& timer, bool clock, const TimingOptions& topt) {
  struct Config {
    const char* name;
    int v, tpb, flags;
  };
  const Config configs[] = {{"v2", 2, 256, 0},
                            {"v2plain", 2, 256, ROPE2D_TUNE_PLAIN_CACHE},
                            {"v4", 4, 256, 0},
                            {"v4plain", 4, 256, ROPE2D_TUNE_PLAIN_CACHE},
                            {"v8plain", 8, 256, ROPE2D_TUNE_PLAIN_CACHE},
                            {"v4plain_128", 4, 128, ROPE2D_TUNE_PLAIN_CACHE},
                            {"v4plain_512", 4, 512, ROPE2D_TUNE_PLAIN_CACHE},
                            {"v4approx", 4, 256, ROPE2D_TUNE_APPROX}};
  std::string head = fmt::format("\n{:>9}", "workload");
  for (const Config& c : configs) head += fmt::format(" {:>10}", c.name);
  head += fmt::format(" {:>10} {:>10}", "fused", "fusedplain");
  fmt::print("{}  (us, {}; vN: N elements per thread, _T: T threads per block, default 256; fused on a layout)\n",
             head, clock ? "GPU kernel time" : "events");
  // Each configuration's time on the finer clock there is; the JSON keeps both.
  auto record = [&](nlohmann::ordered_json& row, const std::string& key, const Timing& t, std::string& line) {
    row[key + "_ms"] = t.event_ms;
    row[key + "_kernel_ms"] = t.kernel_ms;
    line += fmt::format(" {:>10.2f}", (clock ? t.kernel_ms : t.event_ms) * 1e3);
  };
  // The 16 workloads, then sizes between the two largest, where the best cache policy changes.
  std::vector<Workload> shapes = benchmark_workloads();
  for (std::int64_t b : {12, 16, 24, 32, 48}) shapes.push_back({b, 8192});
  nlohmann::ordered_json variant_rows = nlohmann::json::array();
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const Workload& w = shapes[k];
    const std::int64_t n = w.batch * w.seq_len * 128;
    const DeviceInputs d(bench_problem(AngleSource::randn, w.batch, w.seq_len, 300 + k), n);
    const DeviceInputs l(bench_problem(AngleSource::layout, w.batch, w.seq_len, 400 + k), n);
    nlohmann::ordered_json row;
    row["batch"] = w.batch;
    row["seq_len"] = w.seq_len;
    std::string line = fmt::format("{:>9}", fmt::format("{}x{}", w.batch, w.seq_len));
    for (const Config& c : configs)
      record(row, c.name,
             time_backward(timer, [&](auto... x) { return rope2d_backward_config(x..., c.v, c.tpb, c.flags); }, d, topt),
             line);
    for (const int flags : {0, int{ROPE2D_TUNE_PLAIN_CACHE}})
      record(row, flags ? "fused_plain" : "fused",
             time_fused(timer, [&](auto... x) { return rope2d_backward_fused_config(x..., flags); }, l, topt), line);
    variant_rows.push_back(row);
    fmt::print("{}\n", line);
  }
  return variant_rows;
}

}  // namespace rope2d::cli
