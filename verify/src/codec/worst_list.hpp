// A worst-case list's file (the reference's CORE-MATH form, rope2d/ref/worst_list.hpp) read
// through the one reader: a regular file within the size cap (input.hpp), then parsed by the
// reference. The committed lists (reference/worst/) and the angle sweep's lists come this way.
#pragma once

#include <cstdint>
#include <string>

#include "rope2d/ref/worst_list.hpp"

namespace rope2d::verify {

inline constexpr std::uint64_t max_worst_list_bytes = 16u << 20;  // a few thousand lines at most in practice

// The list in the file at `path` (at most max_worst_list_bytes), its lines of `fields` hex
// floats each; throws std::invalid_argument naming the file (a folder, a FIFO, too big) or
// path:line, what was expected and what was found.
ref::WorstList read_worst_list(const std::string& path, int fields);

}  // namespace rope2d::verify
