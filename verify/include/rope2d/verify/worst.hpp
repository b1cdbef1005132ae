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

// The inputs of a suite's problem: for the worst set (set "worst") the lists under worst_dir,
// the same in every round; for any other set make_problem(spec). Throws std::invalid_argument
// when the worst set's lists are missing or no longer hold the spec's element count.
Problem suite_problem(const ProblemSpec& spec, const std::string& worst_dir);

}  // namespace rope2d::verify
