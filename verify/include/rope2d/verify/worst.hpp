// Problems made of given elements: the committed worst-case lists (reference/worst/) as a
// `worst` set, and single hand-made elements for tests of the tolerance table.
#pragma once

#include <string>
#include <vector>

#include "rope2d/verify/problem.hpp"

namespace rope2d::verify {

// A flat problem holding exactly these elements, grads encoded in grad_dtype; elements whose
// grads are not exact in grad_dtype are left out (fp16 cannot hold bf16's range).
Problem problem_of(const std::string& set, ref::Dtype grad_dtype, const std::vector<ref::Element>& elements);

// Every list under dir (near_axis.txt: angles; float32_eval.txt, known.txt: "gc gs t") as one problem
// named worst/<dtype>/n=N. Throws std::invalid_argument (file:line) on a malformed list.
Problem worst_problem(const std::string& dir, ref::Dtype grad_dtype);

}  // namespace rope2d::verify
