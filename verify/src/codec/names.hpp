// The model's named enums read back from their names in an untrusted file (a report, a shard,
// a worker's message): the inverse of name(), one loop for every such enum, refusing anything
// else by naming the field, every name it could have been and what was found.
#pragma once

#include <string_view>

#include "rope2d/verify/model/disposition.hpp"
#include "rope2d/verify/model/status.hpp"

namespace rope2d::verify {

// The disposition named `text`; anything else throws std::invalid_argument
// "<field>: expected one of passed, ..., found the string \"<text, escaped and shortened>\"".
Disposition parse_disposition(std::string_view text, std::string_view field);

// The cause named `text`, the same way.
Cause parse_cause(std::string_view text, std::string_view field);

}  // namespace rope2d::verify
