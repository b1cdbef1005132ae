// Outputs written whole or not at all: checked writes, unique temporary names, rename into
// place. Every file the verifier writes goes through these.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rope2d::verify {

// Writes the concatenated parts to a fresh temporary file beside path (unique name), checks
// every write, fsync and close (a full disk is an error), then renames it into place. `stop`,
// asked between pieces of 16 MiB, abandons the write (a signal arrived).
void write_file_atomic(const std::string& path, const std::vector<std::string_view>& parts,
                       const std::function<bool()>& stop = {});

// All of files ({path, text}) or none: each staged as write_file_atomic does, then renamed into
// place in the order given (put the file whose presence marks the whole last); when one fails,
// the staged ones are removed and those already renamed unlinked.
void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace rope2d::verify
