// Building and loading submissions.
#include "rope2d/verify/submission.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "rope2d/verify/safetensors.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; }

}  // namespace

Submission load_submission(const std::string& path, const std::string& build_dir, const std::string& nvcc,
                           const std::vector<std::string>& nvcc_flags, const std::string& include_dir) {
  Submission s;
  s.path = path;
  if (!fs::is_regular_file(path)) {
    s.error = path + ": no such file";
    return s;
  }
  s.sha256 = sha256_file(path);
  std::string so = path;
  if (ends_with(path, ".cu")) {
    s.kind = "cuda-source";
    fs::create_directories(build_dir);
    so = (fs::path(build_dir) / "submission.so").string();
    std::string cmd = shell_quote(nvcc) + " -O3 -arch=sm_90 -shared -Xcompiler -fPIC -I" + shell_quote(include_dir);
    for (const auto& f : nvcc_flags) {
      cmd += " " + shell_quote(f);
      if (f.find("fast_math") != std::string::npos || f.find("fast-math") != std::string::npos)
        s.warnings.push_back("compiled with " + f + ": sin/cos become hardware approximations, inaccurate beyond a few radians");
    }
    cmd += " -o " + shell_quote(so) + " " + shell_quote(path);
    s.compile_command = cmd;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) {
      s.error = "cannot run nvcc: " + cmd;
      return s;
    }
    std::array<char, 4096> buf;
    while (std::size_t k = fread(buf.data(), 1, buf.size(), p)) s.compile_log.append(buf.data(), k);
    if (pclose(p) != 0) {
      s.error = "compilation failed:\n" + s.compile_log;
      return s;
    }
  } else if (ends_with(path, ".so")) {
    s.kind = "shared-object";
  } else {
    s.error = path + ": expected a CUDA source (.cu) or a shared object (.so)";
    return s;
  }
  s.handle = dlopen(fs::absolute(so).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!s.handle) {
    s.error = std::string("cannot load: ") + dlerror();
    return s;
  }
  s.backward = reinterpret_cast<BackwardFn>(dlsym(s.handle, "rope2d_backward"));
  s.fused = reinterpret_cast<FusedFn>(dlsym(s.handle, "rope2d_backward_fused"));
  if (!s.backward) s.error = "missing symbol rope2d_backward (extern \"C\", see cuda/include/rope2d/rope2d_backward.h)";
  return s;
}

}  // namespace rope2d::verify
