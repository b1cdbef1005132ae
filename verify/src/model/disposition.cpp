// The names of the dispositions, written by every report (disposition.hpp; read back from
// untrusted files by codec/names.hpp). A disposition without a name here fails to compile
// (-Werror=switch).
#include "rope2d/verify/model/disposition.hpp"

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

}  // namespace rope2d::verify
