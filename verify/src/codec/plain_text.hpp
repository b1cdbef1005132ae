// Text that someone else wrote (a submission's build and load output, the paths it named, a
// runner's messages) made safe to show: on a terminal, in a log, in a report. The one UTF-8
// check of every writer that takes untrusted text (Markdown and XML in products/report/ use it too).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rope2d::verify {

// Length of the well-formed UTF-8 sequence starting at s[i] that encodes a character XML
// allows, or 0 (overlong forms, surrogates, U+FFFE/U+FFFF, beyond U+10FFFF, C0 controls but
// tab, newline and return, and C1 controls are refused).
std::size_t valid_sequence(std::string_view s, std::size_t i);

// s as text a terminal shows as written: well-formed UTF-8, line breaks and tabs kept; every
// other control character (the escape sequences that move a terminal's cursor or set its
// title, a carriage return that overwrites a line, C1 controls) and every byte of malformed
// UTF-8 shown as \xNN. Every line after the first starts with `indent`, so that no line of s
// can pass for one of the verifier's own.
std::string plain_text(std::string_view s, std::string_view indent = "");

// s as plain_text on one line: line breaks and tabs shown as \xNN too (a name, a path).
std::string plain_line(std::string_view s);

}  // namespace rope2d::verify
