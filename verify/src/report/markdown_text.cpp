// Untrusted text into Markdown (markdown_text.hpp): markup characters escaped, control
// characters and invalid UTF-8 shown as \xNN; link targets only plain paths under a folder.
#include "rope2d/verify/markdown_text.hpp"

#include <fmt/format.h>

#include <cstdint>

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


std::string markdown_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (c < 0x80) {
      // GitHub's autolinks start at "://" and "www.": broken by escaping their punctuation.
      const bool autolink = (c == ':' && s.substr(i + 1, 2) == "//") ||
                            (c == '.' && i >= 3 && (s.substr(i - 3, 3) == "www" || s.substr(i - 3, 3) == "WWW"));
      if (autolink || std::string_view("\\`*[]<>|&!~").find(static_cast<char>(c)) != std::string_view::npos) out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = valid_sequence(s, i)) {  // multi-byte: c >= 0x80
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

bool safe_link_target(std::string_view rel) {
  if (rel.empty() || rel.front() == '/') return false;
  for (char ch : rel) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || ch == '<' || ch == '>' || ch == '\\') return false;
  }
  for (std::size_t start = 0; start <= rel.size();) {
    const std::size_t end = std::min(rel.find('/', start), rel.size());
    const std::string_view part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace rope2d::verify
