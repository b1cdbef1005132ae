// A verification report, the noun (rope2d/verify/model/report.hpp): when it began, its verdict
// and exit code, the counts of every set that ran.
#include "rope2d/verify/model/report.hpp"

#include <ctime>

namespace rope2d::verify {

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Disposition Report::verdict() const {
  bool incorrect = false, skipped = false, judged = false;
  for (const auto& r : results) {
    if (!r.supported() || r.beyond_definition) continue;
    const Disposition d = r.disposition(gate);
    if (d == Disposition::failed) return Disposition::failed;
    skipped |= d == Disposition::skipped;
    judged |= d != Disposition::skipped;
    incorrect |= d == Disposition::incorrect;
  }
  // Nothing judged because there was no GPU: never "passed" on nothing.
  return incorrect ? Disposition::incorrect : skipped && !judged ? Disposition::skipped : Disposition::passed;
}

int Report::exit_code() const {
  switch (verdict()) {
    case Disposition::passed: return 0;
    case Disposition::incorrect: return 1;
    case Disposition::skipped: return 4;  // as `rope2d verify --require-gpu` without a GPU
    case Disposition::failed:
    case Disposition::not_supported: break;
  }
  return 3;
}

Metrics overall(const Report& r) {
  Metrics all;
  for (const auto& x : r.results)
    if (x.ran()) all.merge(x.metrics, 0);
  return all;
}

}  // namespace rope2d::verify
