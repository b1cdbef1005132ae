// The file-based path of the verifier: judging a kernel's outputs, written by the author in
// any language, against a golden set; and checking a golden set against the reference.
#pragma once

#include "rope2d/verify/codec/golden.hpp"
#include "rope2d/verify/model/report.hpp"
#include "rope2d/verify/codec/safetensors.hpp"

namespace rope2d::verify {

// outputs holds one F32 tensor per golden problem, keyed by the problem name
// ("randn/bf16/2x256") or by the golden file's stem; its element count must match.
// progress is called before each problem. With Subnormals::ieee, flushing a subnormal value to
// zero fails.
Report check_outputs(const GoldenSet& set, const SafeTensors& outputs, Tier gate, const ProgressFn& progress = {},
                     Subnormals subnormals = Subnormals::flush_allowed);

// The `rope2d eval` command of a judged set's first failing element (else its worst): its exact
// inputs in hex floats, with its index and output as a shell comment; "" when every output
// equals the reference.
std::string eval_line(const SetResult& r);

// Every stored result recomputed from the stored inputs by the reference, bit for bit.
Report check_golden_against_reference(const GoldenSet& set, const ProgressFn& progress = {});

}  // namespace rope2d::verify
