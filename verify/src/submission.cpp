// Building and loading submissions.
#include "rope2d/verify/submission.hpp"

#include <dlfcn.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/safetensors.hpp"
#include "rope2d/verify/spawn.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; }

// Only characters no shell gives a meaning to.
bool shell_safe(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+';
  });
}

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
    // nvcc hands file names to its sub-tools through a shell, so a name like "$(cmd).cu" would
    // run cmd: the source is compiled as a copy under a fixed name, in the build folder, and no
    // name taken from the submission or the report folder reaches nvcc.
    fs::copy_file(path, fs::path(build_dir) / "submission.cu", fs::copy_options::overwrite_existing);
    std::vector<std::string> argv{nvcc, "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", "-I" + include_dir};
    const std::string src_dir = fs::absolute(path).parent_path().string();
    if (shell_safe(src_dir)) argv.push_back("-I" + src_dir);  // headers beside the source
    else s.warnings.push_back("headers beside the source are not on the include path: its folder's name holds characters "
                              "that nvcc's shell would interpret");
    for (const auto& f : nvcc_flags) {
      argv.push_back(f);
      if (f.find("fast_math") != std::string::npos || f.find("fast-math") != std::string::npos)
        s.warnings.push_back("compiled with " + f + ": sin/cos become hardware approximations, inaccurate beyond a few radians");
    }
    argv.insert(argv.end(), {"-o", "submission.so", "submission.cu"});
    // Run with an argument vector; the recorded command is quoted so it can be pasted.
    s.compile_command = ref::shell_join(argv);
    const SpawnResult r = run_program(argv, "", [&](const char* d, std::size_t n) {
      if (s.compile_log.size() < (1u << 20)) s.compile_log.append(d, n);
    }, 0, build_dir);
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
