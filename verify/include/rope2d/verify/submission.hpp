// Loading a kernel submission through the ABI of cuda/include/rope2d/rope2d_backward.h: a CUDA
// source file compiled with nvcc into a shared object, or a prebuilt shared object, opened
// with dlopen. Failures are values (a message), never exceptions that escape.
#pragma once

#include <string>
#include <vector>

#include "rope2d/verify/device.hpp"

namespace rope2d::verify {

struct Submission {
  std::string path;            // as given
  std::string kind;            // "builtin", "cuda-source", "shared-object"
  std::string sha256;          // of the file given
  std::string compile_command; // for sources
  std::string compile_log;
  std::vector<std::string> warnings;
  BackwardFn backward = nullptr;
  FusedFn fused = nullptr;     // optional entry point
  std::string error;           // why it cannot be run (build, load, symbol)
  void* handle = nullptr;
};

// Compiles (sources) into build_dir and loads. nvcc_flags are appended to the defaults
// "-O3 -arch=sm_90 -shared -Xcompiler -fPIC"; fast-math flags add a warning.
Submission load_submission(const std::string& path, const std::string& build_dir, const std::string& nvcc,
                           const std::vector<std::string>& nvcc_flags, const std::string& include_dir);

}  // namespace rope2d::verify
