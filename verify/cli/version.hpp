// The version of rope2d, as `rope2d --version` prints it (verify/cli/version.cpp).
#pragma once

namespace rope2d::cli {

const char* version();

}  // namespace rope2d::cli
