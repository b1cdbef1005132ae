// Text from files others wrote (kernel and dtype names of a shard result, a golden problem's
// name, a commit) written into Markdown: as text only, never as markup, one line, in a table
// cell or a list item alike; and the one kind of link target the reports write.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rope2d::verify {

// s as inline Markdown text: the characters that make links, code, HTML, entities, table cells,
// emphasis by `*` or strikethrough (\ ` * [ ] < > | & ! ~) and the punctuation of GitHub's
// autolinks (the ':' of "://", the '.' of "www.") escaped with a backslash; control characters and
// bytes of invalid UTF-8 shown as \xNN (so no line break, table row or heading can start inside
// it). `_` stays as written: names hold it (near_overflow), and it can only emphasise.
std::string markdown_text(std::string_view s);

// Length of the well-formed UTF-8 sequence starting at s[i] that encodes a character XML
// allows, or 0 (overlong forms, surrogates, U+FFFE/U+FFFF, beyond U+10FFFF, C0 controls but
// tab, newline and return, and C1 controls are refused): the one UTF-8 check of every report
// writer that takes untrusted text (Markdown here, XML in report/xml.cpp).
std::size_t valid_sequence(std::string_view s, std::size_t i);

// Whether rel may be written as a link target <rel> to a file under a report's folder: a
// relative path of non-empty components, none "." or "..", without control characters,
// backslashes or angle brackets. Anything else is written as text, not linked.
bool safe_link_target(std::string_view rel);

}  // namespace rope2d::verify
