// The angle sweep's worst-case list (CORE-MATH form, reference's worst_list.hpp): written by a
// sweep, read back as untrusted input, and the lists of consecutive parts of a range joined
// into the list one sweep of the whole range would have written from the same elements. Each
// case carries its error after '#', so that lists can be joined in the sweep's order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "products/sweep/sweep.hpp"

namespace rope2d::verify {

// "all 2^32 float32 bit patterns", or "bit patterns [lo, hi)" with the float ends where they
// are numbers.
std::string sweep_range_words(std::uint64_t lo, std::uint64_t hi);

// The list's '#' header: who made it, what it holds (r's range and the cases of its first grad
// pair), the device and r's time.
std::vector<std::string> sweep_worst_header(const std::string& made_by, const SweepResult& r, const std::string& device);

// The worst elements of every pair: the header, then per pair a '#' line (its angles, max error,
// count over float32-bound) and its cases "gc gs t" in hex floats, largest error first, each
// followed by '#' and its error in units of 2^-24 S (the shortest decimal that reads back exactly).
std::string sweep_worst_list(const SweepResult& r, const std::vector<std::string>& header_lines);

// A list read back: the sweep as far as the list tells it (lo, hi, seconds; per pair its grads,
// angles, max error, count over float32-bound, completeness and worst elements, each with its
// index, inputs and error, not its ref or got), and the device that ran it.
struct SweepWorstList {
  SweepResult sweep;
  std::string device;
};

// Reads the list at `path` of a sweep of patterns [lo, hi) with `grads`, as sweep_worst_list
// writes it with sweep_worst_header: the header naming that range, one '#' line per grad pair in
// order, at most `keep` cases per pair, each of its pair's grads, an angle in the range and its
// error, in the list's order without repeats. Throws std::invalid_argument naming path:line,
// what was expected and what was found.
SweepWorstList read_sweep_worst(const std::string& path, std::uint64_t lo, std::uint64_t hi,
                                const std::vector<SweepGrads>& grads, std::size_t keep);

// Consecutive parts of a range, in order, as one sweep of it: counts summed, the largest max
// error, complete when every part is, each pair's worst elements joined and kept as the sweep
// keeps them (at most `keep`); the time is the longest part's (they ran side by side).
SweepResult join_sweeps(const std::vector<SweepResult>& parts, std::size_t keep);

}  // namespace rope2d::verify
