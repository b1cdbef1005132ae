// The harness of a caller's own function (harness.hpp): the C API's rope2d_verify hands its
// caller's callable (rope2d.verify's Python function) as the one entry, called in the caller's
// own process on each round's host inputs. Nothing is built, loaded or boxed: the code is the
// caller's, run where the caller runs it, and the report's header says so. Host only: built in
// every configuration, with or without CUDA.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "harness/harness.hpp"

namespace rope2d::verify::harness {

namespace {

using Clock = std::chrono::steady_clock;

class CallerHarness final : public Harness {
 public:
  explicit CallerHarness(Caller c) : c_(std::move(c)) {}

  std::string_view kind() const override { return "caller"; }
  std::optional<Unprepared> prepare() override { return std::nullopt; }  // nothing to build or start

  // The caller's lines, the confinement there is (none), then of the machine's lines those that
  // hold here: the reference and the seeds (the device, if any, is the caller's to describe).
  void header(Report& rep, const std::vector<HeaderLine>& machine) const override {
    rep.title = c_.title;
    rep.header = c_.header;
    rep.header.push_back({"confinement", "none: the caller's own code, called in the caller's own process (no box); "
                                         "the judge reads only the outputs and findings it hands back"});
    for (const HeaderLine& line : machine)
      if (line.first == "reference" || line.first == "seeds") rep.header.push_back(line);
    rep.warnings = c_.warnings;
  }

  // A set ends at its first failed call: the caller's function may not be callable again (a
  // call that did not return).
  Judging judging(bool) const override { return {.stop_set_on_error = true}; }

  std::vector<Entry> entries(Tier, Subnormals, bool) override {
    start_ = Clock::now();
    return {{"", c_.call, {}}};
  }

  // The run's time, after the caller's lines and the confinement line.
  void judged(Report& rep, const Phases&, bool) override {
    const double s = std::chrono::duration<double>(Clock::now() - start_).count();
    const std::size_t at = std::min(c_.header.size() + 1, rep.header.size());
    rep.header.insert(rep.header.begin() + static_cast<std::ptrdiff_t>(at),
                      {"time", fmt::format("{:.1f} s in all (inputs, calls, reference and comparison)", s)});
  }

  void end(Report&) override {}
  std::optional<Unprepared> cpu_checks(Report&, const Say&) override { return std::nullopt; }

 private:
  Caller c_;
  Clock::time_point start_ = Clock::now();
};

}  // namespace

std::unique_ptr<Harness> caller_harness(Caller c) { return std::make_unique<CallerHarness>(std::move(c)); }

}  // namespace rope2d::verify::harness
