// Worst-case lists in CORE-MATH form: one case per line as C99 hex floats separated by spaces
// (an angle alone, or "gc gs t"), '#' lines and blank lines ignored; the '#' header records
// the command that made the list and what it holds. Committed under reference/worst/.
#pragma once

#include <string>
#include <vector>

#include "rope2d/ref/backward.hpp"

namespace rope2d::ref {

struct WorstList {
  std::vector<std::string> header;          // the '#' lines, without the '#'
  std::vector<std::vector<double>> cases;   // each with `fields` values
};

// Reads a list whose lines hold `fields` hex floats each. Throws std::invalid_argument naming
// file:line, what was expected and what was found (a decimal, a wrong count, a value that is
// not a float32 when float32 is required).
WorstList read_worst_list(const std::string& path, int fields);

// The elements of a list: "gc gs t" lines as they are; one-angle lines paired with the grads
// (1, 1), (-1, 0.5) and (0.75, -2), exact in every grad dtype, so each term dominates once.
std::vector<Element> worst_elements(const WorstList& list);

// Writes a list: the header lines, then one line of hex floats per case.
std::string format_worst_list(const std::vector<std::string>& header, const std::vector<std::vector<double>>& cases,
                              const std::vector<bool>& as_float);

}  // namespace rope2d::ref
