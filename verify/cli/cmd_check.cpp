// rope2d check --golden DIR [--outputs FILE] [--tier T] [--out DIR] [--quiet]: judges a kernel's
// outputs (any language) against a golden set; without --outputs, checks the golden set
// itself (checksums, and every stored result against the reference).
#include <iostream>

#include "codec/plain_text.hpp"
#include "commands.hpp"
#include "machine_outputs.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "rope2d/verify/judge/check.hpp"
#include "rope2d/verify/products/report_files.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;

struct CheckArgs {
  std::string golden, outputs, tier = "float32-bound", report_dir, report_old;
  bool quiet = false, tier_given = false, ieee_subnormals = false;
  MachineOutputs machine;
};

int run(CheckArgs a) {
  if (!a.report_old.empty()) {
    std::cerr << "rope2d check: --report is deprecated; use --out\n";
    if (!a.report_dir.empty() && a.report_dir != a.report_old)
      throw std::invalid_argument("--report and --out name different folders ('" + a.report_old + "', '" + a.report_dir + "')");
    a.report_dir = a.report_old;
  }
  // Without --outputs the stored results must equal the reference bit for bit: a gate would be ignored.
  if (a.tier_given && a.outputs.empty())
    throw std::invalid_argument("--tier: only with --outputs (a golden set alone is checked bit for bit)");
  const Tier tier = tier_option(a.tier);
  // Where the report and trace go, before anything is read or judged.
  if (!a.report_dir.empty()) check_report_folder(a.report_dir, a.report_old.empty() ? "--out" : "--report");
  check_machine_outputs(a.machine);
  StdoutForJson redirect(a.machine.json);
  const GoldenSet set = open_golden(a.golden);  // checksums first: a damaged set is bad input
  Progress progress(a.quiet);
  const ProgressFn step = [&](std::size_t i, std::size_t n, const std::string& name) { progress.step(i, n, name); };
  Report r = a.outputs.empty() ? check_golden_against_reference(set, step)
                               : check_outputs(set, read_safetensors(a.outputs), tier, step,
                                              a.ieee_subnormals ? Subnormals::ieee : Subnormals::flush_allowed);
  progress.done();
  if (!a.outputs.empty()) r.header.push_back({"outputs", a.outputs});  // the trace lines' solution
  if (!a.report_dir.empty()) write_report(a.report_dir, r);
  std::cout << summary(r);
  if (!a.report_dir.empty()) std::cout << "report: " << plain_line(a.report_dir + "/report.md") << "\n";
  redirect.restore();
  emit_machine_outputs(a.machine, r);
  return r.verdict() == Disposition::failed ? Exit::usage : r.exit_code();
}

std::string footer() {
  std::string s = "Tiers (--tier):\n";
  for (Tier t : all_tiers) s += "  " + std::string(name(t)) + ": " + std::string(rule(t).source) + "\n";
  s += "\nThe --outputs file: a safetensors file with one F32 tensor per golden problem, named by the\n"
       "problem (e.g. \"randn/bf16/2x256\", the \"problem\" of each entry in the set's manifest.json)\n"
       "or by the golden file's stem (randn_bf16_2x256); shape [batch, seq_len, head_dim] or [n].\n";
  return s;
}

}  // namespace

Action add_check(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  app.add_option("--golden", a->golden, "golden set directory (with manifest.json)")->required();
  app.add_option("--outputs", a->outputs, "safetensors file of F32 outputs, one tensor per golden problem (names: below)");
  CLI::Option* tier = app.add_option("--tier", a->tier, "gate, with --outputs: " + tier_names())->capture_default_str();
  app.add_option("--out", a->report_dir, "write report.md / .json / junit.xml / plots here");
  app.add_option("--report", a->report_old, "deprecated: --out")->group("");
  app.add_flag("--ieee-subnormals", a->ieee_subnormals,
               "demand IEEE subnormal behaviour (by default a kernel may flush subnormal values to zero)");
  app.add_flag("--quiet", a->quiet, "no progress display");
  add_machine_outputs(app, a->machine);
  app.footer(footer());
  return [a, tier] {
    a->tier_given = tier->count() > 0;
    return run(*a);
  };
}

}  // namespace rope2d::cli
