// The one way text enters the suite's XML: validated as UTF-8, control characters made
// visible, then handed to pugixml, which escapes markup characters.
#include "xml.hpp"

#include <fmt/format.h>

#include <sstream>

namespace rope2d::verify::xml {

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

std::string xml_safe(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (const std::size_t n = valid_sequence(s, i)) {
      o.append(s.substr(i, n));
      i += n;
    } else {
      o += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
    }
  }
  return o;
}

pugi::xml_node add(pugi::xml_node parent, const char* tag, Attrs attrs, std::string_view text) {
  pugi::xml_node n = parent.append_child(tag);
  for (const auto& [k, v] : attrs) n.append_attribute(k).set_value(xml_safe(v).c_str());
  if (!text.empty()) n.append_child(pugi::node_pcdata).set_value(xml_safe(text).c_str());
  return n;
}

std::string to_string(const pugi::xml_document& doc) {
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  doc.save(s, "  ", pugi::format_indent | pugi::format_no_declaration, pugi::encoding_utf8);
  return s.str();
}

}  // namespace rope2d::verify::xml
