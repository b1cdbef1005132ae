// The version of rope2d (cmake/version.cmake: semantic version + commit), compiled in a file of
// its own: a new commit recompiles this line, not the program's unity files.
#include "version.hpp"

namespace rope2d::cli {

const char* version() { return ROPE2D_VERSION_FULL; }

}  // namespace rope2d::cli
