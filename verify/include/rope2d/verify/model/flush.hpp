// Flush-to-zero as a recognised mode: the problems a kernel solves when its toolchain flushes
// some subnormal values to zero (Triton's sin/cos flush a subnormal angle and keep subnormal
// products; -ftz=true flushes operands and results). Each flushed problem is an IEEE problem
// with some inputs or terms set to zero, solved exactly by the reference.
#pragma once

#include <string>
#include <vector>

#include "rope2d/ref/backward.hpp"

namespace rope2d::verify {

// Which values were flushed (bit flags; 0 is the IEEE evaluation).
enum FlushBits : unsigned {
  flush_angle = 1u,     // a subnormal angle taken as zero: sin t = ±0, cos t = 1
  flush_sin_term = 2u,  // gc, or the product gc*sin t, subnormal and taken as zero
  flush_cos_term = 4u,  // gs, or the product gs*cos t, subnormal and taken as zero
  flush_result = 8u,    // a subnormal result returned as zero
};
inline constexpr int flush_mask_count = 16;

// "IEEE" for 0, else the flushed values joined by '+', e.g. "angle+gs*cos".
std::string flush_mask_name(unsigned mask);

// Cheap and conservative: false only when no value of the float32 evaluation of e can be
// subnormal (from lower bounds on |sin t| and |cos t|, no sin or cos evaluated). ref is the
// correctly rounded result.
bool may_involve_subnormal(const ref::Element& e, float ref);

// Exact: whether some value of e's float32 evaluation may be subnormal, so that a flushed
// problem exists (one double sincos; call after may_involve_subnormal).
bool involves_subnormal(const ref::Element& e, float ref);

struct FlushedProblem {
  unsigned mask;    // what was flushed
  ref::Element e;   // the problem after flushing inputs and terms
  float ref;        // its correctly rounded result (zero when the result is flushed)
  double scale;     // its condition scale S
};

// Every distinct flushed problem of e whose flushed values are subnormal in e's evaluation,
// fewest flushes first; empty when none is.
std::vector<FlushedProblem> flushed_problems(const ref::Element& e);

}  // namespace rope2d::verify
