// Untrusted text into Markdown (markdown_text.hpp): markup characters escaped, control
// characters and invalid UTF-8 shown as \xNN; link targets only plain paths under a folder.
#include "rope2d/verify/markdown_text.hpp"

#include <fmt/format.h>

namespace rope2d::verify {

namespace {

// The length of the valid UTF-8 sequence of at least two bytes at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  // Overlong forms, surrogates and code points past U+10FFFF.
  if ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) > 0x9f) || (c == 0xf0 && b(i + 1) < 0x90) ||
      (c == 0xf4 && b(i + 1) > 0x8f))
    return 0;
  return n;
}

}  // namespace

std::string markdown_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (c < 0x80) {
      if (std::string_view("\\`*[]<>|&!").find(static_cast<char>(c)) != std::string_view::npos) out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = utf8_length(s, i)) {
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
