// rope2d check --golden DIR [--outputs FILE] [--tier T] [--report DIR]: judges a kernel's
// outputs (any language) against a golden set; without --outputs, checks the golden set
// itself (checksums, and every stored result against the reference).
#include <iostream>

#include "commands.hpp"
#include "rope2d/verify/check.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;

struct CheckArgs {
  std::string golden, outputs, tier = "float32-bound", report_dir;
  bool quiet = false, ieee_subnormals = false;
};

int run(const CheckArgs& a) {
  const auto tier = parse_tier(a.tier);
  if (!tier) throw std::invalid_argument("--tier: expected one of " + tier_names() + ", found '" + a.tier + "'");
  const GoldenSet set = open_golden(a.golden);  // checksums first: a damaged set is bad input
  Report r = a.outputs.empty() ? check_golden_against_reference(set) : check_outputs(set, read_safetensors(a.outputs), *tier, a.ieee_subnormals ? Subnormals::ieee : Subnormals::flush_allowed);
  if (!a.report_dir.empty()) write_report(a.report_dir, r);
  std::cout << summary(r);
  if (!a.report_dir.empty()) std::cout << "report: " << a.report_dir << "/report.md\n";
  return r.verdict() == "failed" ? Exit::usage : r.exit_code();
}

}  // namespace

Action add_check(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  app.add_option("--golden", a->golden, "golden set directory (with manifest.json)")->required();
  app.add_option("--outputs", a->outputs, "safetensors file of F32 outputs, one tensor per golden problem");
  app.add_option("--tier", a->tier, "gate: " + tier_names())->capture_default_str();
  app.add_flag("--ieee-subnormals", a->ieee_subnormals,
               "demand IEEE subnormal behaviour (by default a kernel may flush subnormal values to zero)");
  app.add_option("--report", a->report_dir, "write report.md / .json / junit.xml / plots here");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
