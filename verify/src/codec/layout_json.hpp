// A position layout as JSON (schema rope2d.layout/1), the file `rope2d layout FILE` and
// `rope2d golden --layout FILE` read:
//   {"schema": "rope2d.layout/1",
//    "rope": {"head_dim": 128, "base": 10000, "ntk_factor": 1},
//    "batch": [[{"text": 12}, {"image": [32, 48]}, {"marker": 1, "pos": 43}, ...], ...]}
// Read through its schema (verify/schema/layout.schema.json, json_schema.hpp), then one kind
// per segment and the layout's own rules (ref::validate); every refusal names the field.
#pragma once

#include <string>

#include "rope2d/ref/layout.hpp"

namespace rope2d::verify {

inline constexpr const char* layout_schema = "rope2d.layout/1";

std::string layout_to_json(const ref::Layout& layout);
// A layout given as text (a problem's layout); `where` names it in messages.
ref::Layout layout_from_json(const std::string& text, const std::string& where = "layout");
// A layout file, through the one reader (read_json_file).
ref::Layout read_layout_file(const std::string& path);

}  // namespace rope2d::verify
