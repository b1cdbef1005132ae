// The file-based path of the verifier: judging a kernel's outputs, written by the author in
// any language, against a golden set; and checking a golden set against the reference.
#pragma once

#include "rope2d/verify/golden.hpp"
#include "rope2d/verify/report.hpp"
#include "rope2d/verify/safetensors.hpp"

namespace rope2d::verify {

// outputs holds one F32 tensor per golden problem, keyed by the problem name
// ("randn/bf16/2x256") or by the golden file's stem; its element count must match.
// progress is called before each problem. With Subnormals::ieee, flushing a subnormal value to
// zero fails.
Report check_outputs(const GoldenSet& set, const SafeTensors& outputs, Tier gate, const ProgressFn& progress = {},
                     Subnormals subnormals = Subnormals::flush_allowed);

// Every stored result recomputed from the stored inputs by the reference, bit for bit.
Report check_golden_against_reference(const GoldenSet& set, const ProgressFn& progress = {});

}  // namespace rope2d::verify
