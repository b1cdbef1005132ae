// A failed comparison in the words torch.testing.assert_close users know: the mismatched
// elements as a count and a share, the worst element and the greatest absolute and relative
// differences, each at its index as (b, s, d) beside what the tier allowed there. Written
// once here for the terminal summary, report.md, JUnit and the Python package.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rope2d/verify/model/metrics.hpp"

namespace rope2d::verify {

// Flat index i of a row-major shape ([batch, seq_len, head_dim] gives "(b, s, d)"); "(i)" when
// the shape is empty or does not hold i.
std::string index_text(std::int64_t i, std::span<const std::int64_t> shape);

// "Mismatched elements: N / M (x.x%)", then the worst element (in units of 2^-24 S) and the
// greatest absolute and relative differences, each with the tier's allowance at that element.
// Empty when nothing was compared.
std::vector<std::string> mismatch_lines(const Metrics& m, Tier gate, std::span<const std::int64_t> shape);

}  // namespace rope2d::verify
