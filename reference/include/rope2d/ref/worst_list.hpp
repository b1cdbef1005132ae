// Worst-case lists in CORE-MATH form: one case per line as C99 hex floats separated by spaces
// (an angle alone, or "gc gs t"), then optionally '#' and a note on that case (a sweep's list
// gives its error there); blank lines ignored; the '#' lines record the command that made the
// list and what it holds (a sweep's list also heads each grad pair's cases with one).
// Committed under reference/worst/; written by the angle sweep (verify/src/products/sweep/worst.cpp).
// Text in, text out: the files are read by the verifier (verify/src/codec/worst_list.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rope2d/ref/backward.hpp"

namespace rope2d::ref {

struct WorstList {
  std::vector<std::string> header;          // the '#' lines, without the '#'
  std::vector<std::vector<double>> cases;   // each with `fields` values
  std::vector<std::string> notes;           // each case's text after '#' ("" where none)
  std::vector<int> header_at, case_at;      // the line (from 1) of each '#' line and each case
};

// Parses the text of a list whose lines hold `fields` hex floats each; `where` names it (the
// file). Throws std::invalid_argument naming where:line, what was expected and what was found
// (a decimal, a wrong count, a value that is not a float32 when float32 is required). The
// verifier reads a list's file through its one reader (verify/src/codec/worst_list.hpp).
WorstList parse_worst_list(std::string_view text, const std::string& where, int fields);

// The elements of a list: "gc gs t" lines as they are; one-angle lines paired with the grads
// (1, 1), (-1, 0.5) and (0.75, -2), exact in every grad dtype, so each term dominates once.
std::vector<Element> worst_elements(const WorstList& list);

// Writes a list: the header lines, then one line of hex floats per case (fields marked in
// as_float printed as the float they are), with " #" and its note where notes has one.
std::string format_worst_list(const std::vector<std::string>& header, const std::vector<std::vector<double>>& cases,
                              const std::vector<bool>& as_float, const std::vector<std::string>& notes = {});

}  // namespace rope2d::ref
