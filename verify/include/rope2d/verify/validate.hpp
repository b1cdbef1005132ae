// The rules every reader of the verifier applies before using what it read (generic file and
// JSON rules live in rope2d/ref/input.hpp): tensors of the expected dtype and shape, metadata
// that agrees with them; and outputs written whole or not at all (checked writes, unique
// temporary names, rename into place).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/safetensors.hpp"

namespace rope2d::verify {

using ref::bad_input;

// The tensor `name` of st, of dtype `dtype` (empty: any) and exactly `shape`; throws naming
// the file, the tensor and what differs.
const Tensor& need_tensor(const SafeTensors& st, const std::string& name, const std::string& where, const std::string& dtype,
                          const std::vector<std::int64_t>& shape);

// Writes the concatenated parts to a fresh temporary file beside path (unique name), checks
// every write, fsync and close (a full disk is an error), then renames it into place. `stop`,
// asked between pieces of 16 MiB, abandons the write (a signal arrived).
void write_file_atomic(const std::string& path, const std::vector<std::string_view>& parts,
                       const std::function<bool()>& stop = {});

// All of files ({path, text}) or none: each staged as write_file_atomic does, then renamed into
// place in the order given (put the file whose presence marks the whole last); when one fails,
// the staged ones are removed and those already renamed unlinked.
void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

std::string shape_str(const std::vector<std::int64_t>& shape);

}  // namespace rope2d::verify
