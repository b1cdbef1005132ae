// Text from files others wrote (kernel and dtype names of a shard result, a golden problem's
// name, a commit, what a submission printed) written into Markdown: as text only, never as
// markup, in a table cell, a list item or a code span alike; and the one kind of link target the
// reports write.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "codec/plain_text.hpp"  // valid_sequence: the one UTF-8 check

namespace rope2d::verify {

// s as inline Markdown text: the characters that make links, code, HTML, entities, table cells,
// emphasis by `*` or strikethrough (\ ` * [ ] < > | & ! ~) and the punctuation of GitHub's
// autolinks (the ':' of "://", the '.' of "www.") escaped with a backslash; control characters and
// bytes of invalid UTF-8 shown as \xNN (so no line break, table row or heading can start inside
// it). `_` stays as written: names hold it (near_overflow), and it can only emphasise.
std::string markdown_text(std::string_view s);

// s as an inline code span (a report's header value): control characters, line breaks and bytes
// of invalid UTF-8 shown as \xNN (one line), between fences of more backticks than any run of
// them inside, so that nothing in s can close the span.
std::string markdown_code(std::string_view s);

// s as Markdown that may run over lines (a warning, a set's error: a compiler's log, what a
// submission printed): its first line as markdown_text, the others, if any, in a fenced code
// block after it (plain_text, fenced by more backticks than any run of them inside), so that no
// line of s can become a heading, a list item or a verdict of the report's own.
std::string markdown_prose(std::string_view s);

// Whether rel may be written as a link target <rel> to a file under a report's folder: a
// relative path of non-empty components, none "." or "..", without control characters,
// backslashes or angle brackets. Anything else is written as text, not linked.
bool safe_link_target(std::string_view rel);

}  // namespace rope2d::verify
