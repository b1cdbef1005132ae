// Checks a JSON value against a shape written in JSON before anything reads it, so a reader
// that then uses operator[] or get<T>() on it cannot meet a missing key or a wrong type.
// Shapes: "string", "string:MAX" (at most MAX bytes), "bool", "number", "number:LO:HI" (finite,
// in [LO, HI]), "int", "uint", "int:LO:HI", "object", "array", "any",
// alternatives joined by '|' ("string|null"); {"key": S, "opt?": S, "*": S (every other key),
// "|null": true (null allowed)}; [S] (every element), [S1, S2, ...] (exactly these elements).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace rope2d::verify {

// Throws bad input (exit 2) naming where (the file), the field's path and what differs.
void check_shape(const nlohmann::json& value, const nlohmann::json& shape, const std::string& where, const std::string& field = "");

}  // namespace rope2d::verify
