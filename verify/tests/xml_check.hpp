// A strict check of XML text beyond what pugixml checks: the bytes are well-formed UTF-8 and
// hold no character XML 1.0 forbids (control characters other than tab, newline, return).
#pragma once

#include <string>
#include <string_view>

namespace rope2d::verify::test {

// "" when text is acceptable, else what is wrong and at which byte.
inline std::string xml_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "control character at byte " + std::to_string(i);
      ++i;
      continue;
    }
    const std::size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return "invalid UTF-8 at byte " + std::to_string(i);
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return "invalid UTF-8 at byte " + std::to_string(i);
    i += n;
  }
  return "";
}

}  // namespace rope2d::verify::test
