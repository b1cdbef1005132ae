// The registry of harnesses (harness.hpp): a file's kind from the one suffix table (kinds.cpp),
// the kind's host to its harness, or the kind's own harness.
#include "harness/harness.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace rope2d::verify::harness {

std::unique_ptr<Harness> harness_for(const HarnessOptions& o) {
  const SubmissionKind* k = kind_of(o.submission);
  if (!k) return kernel_harness(nullptr, o);
  switch (k->host) {
    case Host::kernel: return kernel_harness(k, o);
    case Host::python: return python_harness(*k, o);
    case Host::own: return k->make(*k, o);
  }
  throw std::logic_error("a submission kind without a host");
}

std::string seconds(double s) { return fmt::format("{:g} s", s); }

}  // namespace rope2d::verify::harness
