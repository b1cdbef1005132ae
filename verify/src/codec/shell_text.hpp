// Text for a POSIX shell: a recorded command (a reproduce line, a compile command, a golden
// set's command line) quoted so that it can be pasted and runs the same argument vector.
#pragma once

#include <string>
#include <vector>

namespace rope2d::verify {

// s quoted for a POSIX shell only where needed, so a recorded command can be pasted.
std::string shell_quote(const std::string& s);
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace rope2d::verify
