// Self-contained HTML pages (report.html, the nightly dashboard): untrusted text escaped, one
// inline style sheet, SVG inlined, and a content security policy that lets the page load
// nothing (no network, no script), so it reads the same from a file, an artifact store or a mail.
#pragma once

#include <string>
#include <string_view>

namespace rope2d::verify::html {

// s as HTML text or a quoted attribute value: invalid UTF-8 and control characters as \xNN
// (xml::xml_safe), then & < > " ' escaped.
std::string text(std::string_view s);

// A whole page: doctype, UTF-8, the policy, the shared style plus `style`, and the body.
std::string page(std::string_view title, std::string_view style, std::string_view body);

// An SVG document as an element of the page (its XML declaration dropped).
std::string inline_svg(std::string_view svg);

// <a href="rel">label</a> where rel is a plain relative path (safe_link_target), else label
// alone (both escaped).
std::string link(std::string_view rel, std::string_view label);

}  // namespace rope2d::verify::html
