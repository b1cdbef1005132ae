// Reading a measurement of sinf / cosf / sincosf (sincosf_ulp --json, rope2d.sincosf_ulp/1)
// through the one reader (json_schema.hpp, verify/schema/sincosf-ulp.schema.json): exactly the
// fields sincosf_ulp writes, none missing, none unknown, each of its type and range, strings
// bounded, at_x a finite float32 in hex. Its comparison with the premise is the reference's
// (rope2d/ref/sincosf_premise.hpp); premise_check and the nightly read it here.
#pragma once

#include <string>

#include "rope2d/ref/sincosf_premise.hpp"

namespace rope2d::verify {

// Throws std::invalid_argument (bad input, exit 2) naming the file, the field, what was
// expected and what was found.
ref::SincosfMeasurement read_sincosf_measurement(const std::string& path);

}  // namespace rope2d::verify
