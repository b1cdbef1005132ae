// Building XML documents (SVG, JUnit) with pugixml: every string that enters a document goes
// through xml_safe() here, and pugixml escapes <, >, & and quotes, so no caller writes markup.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace rope2d::verify::xml {

// s as valid XML 1.0 character data: well-formed UTF-8 kept, every byte of an invalid
// sequence and every control character other than tab, newline and return written as \xNN.
std::string xml_safe(std::string_view s);

using Attrs = std::initializer_list<std::pair<const char*, std::string>>;

// Appends <tag attrs...>text</tag> under parent.
pugi::xml_node add(pugi::xml_node parent, const char* tag, Attrs attrs = {}, std::string_view text = {});

// The document with an XML declaration, indented by two spaces.
std::string to_string(const pugi::xml_document& doc);

}  // namespace rope2d::verify::xml
