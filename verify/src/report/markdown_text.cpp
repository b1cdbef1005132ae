// Untrusted text into Markdown (markdown_text.hpp): markup characters escaped, control
// characters and invalid UTF-8 shown as \xNN; link targets only plain paths under a folder.
#include "rope2d/verify/markdown_text.hpp"

#include <fmt/format.h>

#include "report/xml.hpp"  // valid_sequence

namespace rope2d::verify {

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
    } else if (const std::size_t n = xml::valid_sequence(s, i)) {  // multi-byte: c >= 0x80
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
