// The --huge set: one call past 2^31 elements per grad dtype (about 26 GB of device buffers
// with bf16 grads), where 32-bit index arithmetic breaks. Judged on a sample: every element
// within 4096 of 2^31 (and of 2^32 where n passes it), the first and last 4096, and 2^20 drawn
// at random; the reference is computed for those only.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/testbed/device.hpp"
#include "rope2d/verify/model/report.hpp"
#include "rope2d/verify/judge/suites.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

std::vector<ProblemSpec> huge_suite(const SuiteOptions& o);

// The indices judged on a huge problem, sorted and distinct.
std::vector<std::int64_t> judged_indices(const ProblemSpec& s);

// The sampled elements of p with the kernel's outputs at them, as a problem of their own: the
// ordinary reference and comparison then judge the sample (indices in failure lines are
// positions in the sample).
Problem sample_of(const Problem& p, const std::vector<std::int64_t>& idx);

// Runs and judges every huge set on the testbed.
std::vector<SetResult> huge_checks(Testbed& bed, BackwardFn fn, const SuiteOptions& o, Tier gate, Subnormals subnormals);

}  // namespace rope2d::verify
