// An enum of the model read back from its name in an untrusted file (a report, a shard): one
// loop for every named enum (dispositions, causes), each with its list of every value and name().
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rope2d/ref/input.hpp"

namespace rope2d::verify::detail {

// The value of `all` whose name() is `text`; anything else throws std::invalid_argument
// "<field>: expected one of <every name>, found <text, quoted and shortened>".
template <class E, std::size_t N>
E parse_named(std::string_view text, std::string_view field, const E (&all)[N]) {
  std::string names;
  for (E e : all) {
    if (name(e) == text) return e;
    names += (names.empty() ? "" : ", ") + std::string(name(e));
  }
  throw std::invalid_argument(std::string(field) + ": expected one of " + names + ", found " +
                              ref::brief(nlohmann::json(std::string(text))));
}

}  // namespace rope2d::verify::detail
