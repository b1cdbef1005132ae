// Words for messages: a list of names said as a sentence says it ("bf16, fp16 or fp32"). The
// reference's own messages use it (grad_dtype_names), and the verifier's lists of suites and
// submission kinds, so every such list in the project reads alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rope2d::ref {

// Words as a message lists them: "a, b or c" (last_joint before the last word).
std::string spoken_list(const std::vector<std::string_view>& words, std::string_view last_joint = " or ");

}  // namespace rope2d::ref
