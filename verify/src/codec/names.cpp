// The model's enums read back from their names (names.hpp), found text described by brief().
#include "codec/names.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "codec/input.hpp"

namespace rope2d::verify {

namespace {

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
                              brief(nlohmann::json(std::string(text))));
}

}  // namespace

Disposition parse_disposition(std::string_view text, std::string_view field) { return parse_named(text, field, all_dispositions); }

Cause parse_cause(std::string_view text, std::string_view field) { return parse_named(text, field, all_causes); }

}  // namespace rope2d::verify
