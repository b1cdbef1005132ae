// One shard of the night per GPU, as child processes of this program each seeing its GPU only,
// then their merge and the night's report (nightly_gpus.hpp).
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "codec/atomic_file.hpp"
#include "products/nightly/nightly_gpus.hpp"
#include "products/nightly/nightly_input.hpp"
#include "products/nightly/nightly_report.hpp"
#include "products/nightly/nightly_run.hpp"
#include "harness/spawn.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<int> gpu_list(const std::string& spec, int present) {
  std::vector<int> ids;
  if (spec == "all") {
    for (int g = 0; g < present; ++g) ids.push_back(g);
    return ids;
  }
  std::set<int> seen;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty() || part.size() > 4 || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--gpus: expected all or device ids like 0,2, found '" + spec.substr(0, 40) + "'");
    const int g = std::stoi(part);
    if (present > 0 && g >= present)
      throw std::invalid_argument(fmt::format("--gpus: expected ids below {} (the GPUs present), found {}", present, g));
    if (!seen.insert(g).second) throw std::invalid_argument(fmt::format("--gpus: expected each id once, found {} twice", g));
    ids.push_back(g);
  }
  if (ids.empty()) throw std::invalid_argument("--gpus: expected all or device ids like 0,2, found nothing");
  return ids;
}

bool run_nightly_on_gpus(const NightlyOptions& o, const std::string& date, const std::vector<int>& ids) {
  const int n = static_cast<int>(ids.size());
  const fs::path dir = make_night_folder(o.root, date);
  // The children's logs are opened for writing: never through a link or into a FIFO. All
  // checked before the first child starts.
  for (int i = 0; i < n; ++i) require_output_file((dir / fmt::format("shard-{}-of-{}.log", i, n)).string());
  std::vector<SpawnResult> results(n);
  std::vector<std::thread> children;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const ShardId s{i, n};
    fs::remove(dir / shard_file(s));  // an earlier attempt's result must not stand in for this one's
    std::vector<std::string> argv{o.program, "nightly", "--shard", fmt::format("{}/{}", i, n), "--out", o.root, "--date",
                                  date,      "--golden", o.golden,  "--quiet"};
    if (!o.config.empty()) argv.insert(argv.end(), {"--config", o.config});
    if (!o.sincosf_measurement.empty()) argv.insert(argv.end(), {"--sincosf-measurement", o.sincosf_measurement});
    if (o.quick) argv.push_back("--quick");
    const std::string log = (dir / fmt::format("shard-{}-of-{}.log", i, n)).string();
    children.emplace_back([&results, argv, log, i, g = ids[i]] { results[i] = run_logged(argv, log, {"CUDA_VISIBLE_DEVICES=" + std::to_string(g)}); });
  }
  for (auto& t : children) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<std::pair<std::string, json>> shards;
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    const fs::path f = dir / shard_file({i, n});
    if (results[i].code() != 0 || !fs::exists(f)) {
      std::cerr << fmt::format("rope2d nightly: shard {}/{} on GPU {} {} without a result; log: {}\n", i, n, ids[i],
                               results[i].exit_text(), (dir / fmt::format("shard-{}-of-{}.log", i, n)).string());
      ++failed;
      continue;
    }
    shards.emplace_back(f.string(), read_shard_result(f.string()));
  }
  if (failed) return false;
  NightSummary merged = merge_nightly_shards(shards);
  const auto worst = nightly_merged_worst(o.root, merged, shards);
  merged.gpus = ids;
  merged.wall_seconds = wall;
  std::cout << fmt::format("rope2d nightly: {} shards on GPUs {} in {:.1f} s\n", n, json(ids).dump(), wall);
  const NightReport report = write_nightly_report(o.root, merged, worst);
  std::cout << report.markdown << "\nreport: " << report.path << "\n";
  return report.ok;
}

}  // namespace rope2d::verify
