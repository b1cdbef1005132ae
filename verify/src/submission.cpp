// Building and loading submissions.
#include "rope2d/verify/submission.hpp"

#include <dlfcn.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/safetensors.hpp"
#include "rope2d/verify/spawn.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; }

}  // namespace

Submission load_submission(const std::string& path, const std::string& build_dir, const std::string& nvcc,
                           const std::vector<std::string>& nvcc_flags, const std::string& include_dir) {
  Submission s;
  s.path = path;
  if (!fs::is_regular_file(path) || fs::file_size(path) == 0) {
    s.error = path + (fs::is_regular_file(path) ? ": empty file" : ": no such file");
    return s;
  }
  s.sha256 = sha256_file(path);
  std::string so = path;
  if (ends_with(path, ".cu")) {
    s.kind = "cuda-source";
    fs::create_directories(build_dir);
    so = (fs::path(build_dir) / "submission.so").string();
    std::vector<std::string> argv{nvcc, "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", "-I" + include_dir};
    for (const auto& f : nvcc_flags) {
      argv.push_back(f);
      if (f.find("fast_math") != std::string::npos || f.find("fast-math") != std::string::npos)
        s.warnings.push_back("compiled with " + f + ": sin/cos become hardware approximations, inaccurate beyond a few radians");
    }
    argv.insert(argv.end(), {"-o", so, path});
    // Run with an argument vector; the recorded command is quoted so it can be pasted.
    s.compile_command = ref::shell_join(argv);
    const SpawnResult r = run_program(argv, "", [&](const char* d, std::size_t n) {
      if (s.compile_log.size() < (1u << 20)) s.compile_log.append(d, n);
    });
    if (!r.started) {
      s.error = "cannot run nvcc (" + r.start_error + "): " + s.compile_command;
      return s;
    }
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
      s.error = "compilation failed (" + r.exit_text() + "):\n" + s.compile_log;
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
