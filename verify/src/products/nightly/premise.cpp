// The sincosf premise measured in the night, or a given measurement compared (nightly_premise.hpp).
#include "products/nightly/nightly_premise.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "rope2d/ref/sincosf_premise.hpp"
#include "codec/sincosf_measurement.hpp"
#include "codec/atomic_file.hpp"
#include "harness/spawn.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

std::vector<std::string> night_premise_excesses(const NightPremiseFigures& f, double k_ulp) {
  ref::Float32Bound b{};
  b.k_ulp = k_ulp;  // all premise_excesses reads of it
  return ref::premise_excesses({f.function, f.ulp, f.at_x, f.mpfr_ulp, f.floats, f.outside}, b);
}

NightPremise compare_premise(const std::string& file, bool given) {
  NightPremise p;
  p.file = file;
  p.given = given;
  p.k_ulp = ref::cuda_sincosf_bound.k_ulp;
  ref::SincosfMeasurement m;
  try {
    m = read_sincosf_measurement(file);
  } catch (const std::invalid_argument& e) {  // the file and field in the message
    p.disposition = Disposition::failed;
    p.reason = std::string("the measurement does not read: ") + e.what();
    return p;
  }
  p.device = m.device;
  p.cuda_runtime = m.cuda_runtime;
  p.cuda_driver = m.cuda_driver;
  p.date = m.date;
  for (const ref::SincosfFigures& f : m.functions) {
    p.functions.push_back({f.function, f.max_floats_from_correctly_rounded, f.max_ulp_from_exact, f.mpfr_recheck_ulp, f.at_x,
                           f.outside_unit_interval});
    for (std::string& e : night_premise_excesses(p.functions.back(), p.k_ulp)) p.exceeded.push_back(std::move(e));
  }
  p.disposition = p.exceeded.empty() ? Disposition::passed : Disposition::incorrect;
  return p;
}

NightPremise measure_premise(const std::string& program, const std::string& dir, double time_limit_s) {
  const std::string file = (fs::path(dir) / "sincosf_ulp.json").string(), log = (fs::path(dir) / "sincosf_ulp.log").string();
  // The program opens both for writing: never through a link or into a FIFO; and an earlier
  // run's measurement must not stand in for tonight's.
  require_output_file(file);
  require_output_file(log);
  fs::remove(file);
  const auto t0 = std::chrono::steady_clock::now();
  const SpawnResult r = run_logged({program, "--json", file}, log, {}, time_limit_s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto failed = [&](const std::string& why) {
    NightPremise p;
    p.disposition = Disposition::failed;
    p.program = program;
    p.file = file;
    p.k_ulp = ref::cuda_sincosf_bound.k_ulp;
    p.seconds = seconds;
    p.reason = fmt::format("{} {} (log: {})", program, why, log);
    return p;
  };
  if (!r.started) return failed("did not start: " + r.start_error);
  if (r.timed_out) return failed(fmt::format("did not finish within {:g} s (killed)", time_limit_s));
  if (r.code() == 77) return failed("found no usable GPU (exit 77), where the night found one");
  if (r.code() != 0 && r.code() != 1) return failed("failed (" + r.exit_text() + ")");
  if (!fs::exists(file)) return failed("wrote no measurement to " + file + " (" + r.exit_text() + ")");
  NightPremise p = compare_premise(file, false);
  p.program = program;
  p.seconds = seconds;
  // Exit 1 is the program's own finding that the premise is broken: a measurement that then
  // reads within the premise is a disagreement, never a pass.
  if (r.code() == 1 && p.disposition == Disposition::passed)
    return failed("exited 1 (the premise broken, it says) over a measurement within the premise");
  return p;
}

NightPremise night_premise(const nlohmann::json& plan, const DeviceInfo& dev, const std::string& dir, const std::string& self) {
  const std::string given = plan.at("premise").at("measurement").get<std::string>();
  if (!given.empty()) return compare_premise(given, true);
  NightPremise p;
  p.k_ulp = ref::cuda_sincosf_bound.k_ulp;
  if (!dev.available) {
    p.disposition = Disposition::skipped;
    p.reason = (dev.reason.empty() ? "no GPU" : dev.reason) + ": sinf / cosf / sincosf not measured";
    return p;
  }
  std::vector<std::string> looked;
  const std::string program = find_own_program("sincosf_ulp", &looked, self);
  if (program.empty()) {
    std::string places;
    for (const std::string& l : looked) places += (places.empty() ? "" : ", ") + l;
    p.disposition = Disposition::failed;
    p.reason = "sincosf_ulp not found (looked at " + places + "; it is built and installed with CUDA)";
    return p;
  }
  return measure_premise(program, dir);
}

}  // namespace rope2d::verify
