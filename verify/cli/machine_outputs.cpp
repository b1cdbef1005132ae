// --trace and --json (machine_outputs.hpp).
#include "machine_outputs.hpp"

#include <filesystem>

#include "codec/validate.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace rope2d::cli {

void add_machine_outputs(CLI::App& app, MachineOutputs& m) {
  app.add_option("--trace", m.trace, "also write SOL-ExecBench Trace JSON lines (one per set) to this file");
  app.add_flag("--json", m.json, "print report.json to stdout (everything else goes to stderr)");
}

void check_machine_outputs(const MachineOutputs& m) {
  if (!m.trace.empty()) verify::require_output_file(m.trace, "--trace");
}

void emit_machine_outputs(const MachineOutputs& m, const verify::Report& r) {
  check_machine_outputs(m);
  if (!m.trace.empty()) verify::write_file_atomic(m.trace, {verify::render_trace(r)});
  if (m.json) std::cout << verify::render_json(r) << std::flush;
}

void emit_machine_outputs(const MachineOutputs& m, const std::string& report_dir) {
  if (m.trace.empty() && !m.json) return;
  const std::string path = (std::filesystem::path(report_dir) / "report.json").string();
  if (!std::filesystem::exists(path)) {
    std::cerr << "rope2d: no report was written (" << path << "): no trace or JSON to give\n";
    return;
  }
  emit_machine_outputs(m, verify::read_report_json(path));
}

}  // namespace rope2d::cli
