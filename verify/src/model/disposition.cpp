// The names of the dispositions, written by every report and read back from untrusted files
// (disposition.hpp). A disposition without a name here fails to compile (-Werror=switch).
#include "rope2d/verify/model/disposition.hpp"

#include <stdexcept>
#include <nlohmann/json.hpp>
#include <string>

#include "rope2d/ref/input.hpp"

namespace rope2d::verify {

std::string_view name(Disposition d) {
  switch (d) {
    case Disposition::passed: return "passed";
    case Disposition::incorrect: return "incorrect";
    case Disposition::failed: return "failed";
    case Disposition::not_supported: return "not supported";
    case Disposition::skipped: return "skipped";
  }
  return "?";  // not reached: every value is a case above
}

Disposition parse_disposition(std::string_view text, std::string_view field) {
  std::string names;
  for (Disposition d : all_dispositions) {
    if (name(d) == text) return d;
    names += (names.empty() ? "" : ", ") + std::string(name(d));
  }
  throw std::invalid_argument(std::string(field) + ": expected one of " + names + ", found " +
                              ref::brief(nlohmann::json(std::string(text))));
}

}  // namespace rope2d::verify
