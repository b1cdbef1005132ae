// Untrusted text made safe to show (plain_text.hpp): well-formed UTF-8 kept, controls and
// malformed bytes as \xNN.
#include "codec/plain_text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace rope2d::verify {

std::size_t valid_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') && c != 0x7f ? 1 : 0;
  std::size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
  if (n == 0 || c > 0xf4 || i + n > s.size()) return 0;
  std::uint32_t cp = c & (0x3f >> (n - 1));
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  const std::uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff) return 0;
  if (cp >= 0x80 && cp <= 0x9f) return 0;  // C1 controls: allowed by XML 1.0 but discouraged
  return n;
}

std::string plain_text(std::string_view s, std::string_view indent) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c == '\r' ? 0 : valid_sequence(s, i);  // a carriage return rewrites the line
    if (n == 0) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    if (c == '\n') out.append(indent);
    i += n;
  }
  return out;
}

std::string plain_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t start = 0; start <= s.size();) {
    const std::size_t end = std::min(s.find_first_of("\n\t", start), s.size());
    out += plain_text(s.substr(start, end - start));
    if (end < s.size()) out += s[end] == '\n' ? "\\x0a" : "\\x09";
    start = end + 1;
  }
  return out;
}

}  // namespace rope2d::verify
