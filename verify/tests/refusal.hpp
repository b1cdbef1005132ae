// For tests of untrusted input: the message a call refuses its input with.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

// f()'s std::invalid_argument message, or `accepted` when f returns.
template <class F>
std::string refusal_of(F&& f, std::string accepted = "") {
  try {
    std::forward<F>(f)();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return accepted;
}
