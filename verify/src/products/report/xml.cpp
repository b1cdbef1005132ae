// The one way text enters the suite's XML: validated as UTF-8, control characters made
// visible, then handed to pugixml, which escapes markup characters.
#include "xml.hpp"

#include "codec/plain_text.hpp"  // valid_sequence

#include <fmt/format.h>

#include <sstream>

namespace rope2d::verify::xml {

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
