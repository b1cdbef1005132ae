// Untrusted text into Markdown (markdown_text.hpp): markup characters escaped, control
// characters and invalid UTF-8 shown as \xNN; link targets only plain paths under a folder.
#include "codec/markdown_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rope2d::verify {

namespace {

// The longest run of backticks in s: a fence must be longer to hold s.
std::size_t longest_backtick_run(std::string_view s) {
  std::size_t longest = 0, run = 0;
  for (char c : s) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  return longest;
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

std::string markdown_code(std::string_view s) {
  const std::string text = plain_line(s);
  const std::string fence(longest_backtick_run(text) + 1, '`');
  // A span that starts or ends with a backtick is padded: one space each side is not shown.
  const bool pad = text.empty() || text.front() == '`' || text.back() == '`';
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

std::string markdown_prose(std::string_view s) {
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  const std::size_t nl = s.find('\n');
  if (nl == std::string_view::npos) return markdown_text(s);
  const std::string rest = plain_text(s.substr(nl + 1));
  const std::string fence(std::max<std::size_t>(3, longest_backtick_run(rest) + 1), '`');
  return markdown_text(s.substr(0, nl)) + "\n\n" + fence + "\n" + rest + "\n" + fence;
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
