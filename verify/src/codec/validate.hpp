// The rules every reader of the verifier applies before using what it read (generic file and
// JSON rules live in input.hpp): tensors of the expected dtype and shape, metadata
// that agrees with them. Outputs written whole or not at all are atomic_file.hpp's (included
// here for the writers that read too).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codec/input.hpp"
#include "codec/atomic_file.hpp"
#include "rope2d/verify/codec/safetensors.hpp"

namespace rope2d::verify {

// The tensor `name` of st, of dtype `dtype` (empty: any) and exactly `shape`; throws naming
// the file, the tensor and what differs.
const Tensor& need_tensor(const SafeTensors& st, const std::string& name, const std::string& where, const std::string& dtype,
                          const std::vector<std::int64_t>& shape);

}  // namespace rope2d::verify
