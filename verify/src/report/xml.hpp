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

// Length of the well-formed UTF-8 sequence starting at s[i] that encodes a character XML
// allows, or 0 (overlong forms, surrogates, U+FFFE/U+FFFF, beyond U+10FFFF, C0 controls but
// tab, newline and return, and C1 controls are refused): the one UTF-8 check of every report
// writer that takes untrusted text (XML here, Markdown in markdown_text.cpp).
std::size_t valid_sequence(std::string_view s, std::size_t i);

// s as valid XML 1.0 character data: well-formed UTF-8 kept, every byte of an invalid
// sequence and every control character other than tab, newline and return written as \xNN.
std::string xml_safe(std::string_view s);

using Attrs = std::initializer_list<std::pair<const char*, std::string>>;

// Appends <tag attrs...>text</tag> under parent.
pugi::xml_node add(pugi::xml_node parent, const char* tag, Attrs attrs = {}, std::string_view text = {});

// The document with an XML declaration, indented by two spaces.
std::string to_string(const pugi::xml_document& doc);

}  // namespace rope2d::verify::xml
