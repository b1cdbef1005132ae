// The sweep's result as sweep.json, one paragraph of Markdown and its two files
// (sweep_report.hpp), for `rope2d sweep` and the nightly alike.
#include "products/sweep/sweep_report.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "rope2d/ref/floats.hpp"
#include "products/sweep/sweep_worst.hpp"
#include "codec/validate.hpp"

namespace rope2d::verify {

using nlohmann::json;
namespace fs = std::filesystem;

json sweep_json(const SweepResult& r) {
  json pairs = json::array();
  for (const SweepPair& p : r.pairs)
    pairs.push_back({{"name", p.grads.name},
                     {"gc", ref::hex(p.grads.gc)},
                     {"gs", ref::hex(p.grads.gs)},
                     {"angles", p.angles},
                     {"deferred_to_cpu", p.deferred},
                     {"complete", p.complete},
                     {"seconds", p.seconds},
                     {"max_scaled_error", p.metrics.max_scaled},
                     {"max_ulp", p.metrics.max_ulp},
                     {"rms_scaled_error", p.metrics.rms_scaled()},
                     {"over_float32_bound", p.metrics.over[static_cast<int>(Tier::float32_bound)]},
                     {"passed", p.metrics.passes(Tier::float32_bound)},
                     {"worst", p.worst.empty() ? std::string() : p.worst.front().line("sweep", "worst")}});
  const double cr = r.metrics.count ? double(r.metrics.correctly_rounded) / r.metrics.count : 0.0;
  return {{"ran", r.ran},
          {"skipped", r.skipped},
          {"backend", r.backend},
          {"lo", fmt::format("{:#x}", r.lo)},
          {"hi", fmt::format("{:#x}", r.hi)},
          {"next", fmt::format("{:#x}", r.next)},
          {"reached", r.reached},
          {"complete", r.complete},
          {"angles", r.angles},
          {"seconds", r.seconds},
          {"max_scaled_error", r.metrics.max_scaled},
          {"over_strict", r.metrics.over[static_cast<int>(Tier::float32_bound)]},  // the old name, kept for old readers
          {"over_float32_bound", r.metrics.over[static_cast<int>(Tier::float32_bound)]},
          {"correctly_rounded_fraction", cr},
          {"pairs", pairs}};
}

std::string sweep_markdown(const SweepResult& r) {
  if (!r.ran) return "SKIPPED: " + r.skipped + "\n";
  std::string md = fmt::format(
      "{} ({}), {} grad pairs: {} angle/grad pairs checked in {:.1f} s{}; max error {:.3f} x 2^-24 S; {} over float32-bound; "
      "{:.6f} correctly rounded.\n\n| grads | gc | gs | angles | seconds | max err (2^-24 S) | max ulp | over | to the CPU |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      sweep_range_words(r.lo, r.hi), r.backend, r.pairs.size(), r.angles, r.seconds,
      r.complete ? "" : fmt::format(" (time box reached: resume at pattern {:#x})", r.next), r.metrics.max_scaled,
      r.metrics.over[static_cast<int>(Tier::float32_bound)],
      r.metrics.count ? double(r.metrics.correctly_rounded) / r.metrics.count : 0.0);
  for (const SweepPair& p : r.pairs)
    md += fmt::format("| {} | {} | {} | {} | {:.1f} | {:.3f} | {:.3g} | {} | {} |\n", p.grads.name, ref::hex(p.grads.gc),
                      ref::hex(p.grads.gs), p.angles, p.seconds, p.metrics.max_scaled, p.metrics.max_ulp, p.metrics.over[static_cast<int>(Tier::float32_bound)],
                      p.deferred);
  for (const SweepPair& p : r.pairs)
    for (const ElementReport& f : p.metrics.failures) md += "\n    " + f.line("sweep/" + p.grads.name);
  return md;
}

namespace {

constexpr const char* sweep_files[] = {"sweep.json", "sweep_worst.txt"};

}  // namespace

void check_sweep_folder(const std::string& dir, const std::string& label) {
  require_output_folder(dir, label);
  for (const char* f : sweep_files) require_output_file((fs::path(dir) / f).string(), label.empty() ? "" : label + " " + dir + ":");
}

void write_sweep_files(const std::string& dir, const SweepResult& r, const std::string& command, const std::string& device) {
  check_sweep_folder(dir);
  make_output_folder(dir);
  write_file_atomic((fs::path(dir) / "sweep.json").string(), {sweep_json(r).dump(2), "\n"});
  write_file_atomic((fs::path(dir) / "sweep_worst.txt").string(), {sweep_worst_list(r, sweep_worst_header(command, r, device))});
}

}  // namespace rope2d::verify
