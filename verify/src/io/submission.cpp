// Building and loading submissions.
#include "rope2d/verify/submission.hpp"

#include <dlfcn.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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


// A fresh folder only this process knows, under the system's temporary folder where its name
// is shell-safe (else /tmp): nvcc's sub-steps see its absolute path, never the report folder's.
std::string private_build_folder() {
  std::error_code ec;
  std::string base = fs::temp_directory_path(ec).string();
  if (ec || !shell_safe(base)) base = "/tmp";
  std::string tmpl = base + "/rope2d-build-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return "";
  return tmpl;
}

// nvcc runs its sub-steps through `sh -c` with absolute paths in double quotes, where $(...)
// and backticks expand: the source is compiled as a copy named submission.cu in a private
// folder whose path we choose, and the result moved to build_dir. No name taken from the
// submission, the report folder or a config reaches nvcc. False (s.error set) on failure.
bool build_in_private_folder(Submission& s, const std::string& path, const std::string& build_dir, const std::string& nvcc,
                             const std::vector<std::string>& nvcc_flags, const std::string& include_dir) {
  const std::string work = private_build_folder();
  if (work.empty()) {
    s.error = std::string("cannot create a private build folder: ") + std::strerror(errno);
    return false;
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};
  std::error_code ec;
  fs::copy_file(path, fs::path(work) / "submission.cu", ec);
  if (ec) {
    s.error = path + ": cannot copy it to build it (" + ec.message() + ")";
    return false;
  }
  std::vector<std::string> argv{nvcc, "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC"};
  if (shell_safe(include_dir)) argv.push_back("-I" + include_dir);
  else s.warnings.push_back("the ABI header's folder is not on the include path: its name holds characters that nvcc's shell would interpret");
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
  }, 0, work);
  if (!r.started) {
    s.error = "cannot run nvcc (" + r.start_error + "): " + s.compile_command;
    return false;
  }
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    s.error = "compilation failed (" + r.exit_text() + "):\n" + s.compile_log;
    return false;
  }
  fs::create_directories(build_dir, ec);
  if (!ec) fs::copy_file(fs::path(work) / "submission.so", fs::path(build_dir) / "submission.so", fs::copy_options::overwrite_existing, ec);
  if (ec) {
    s.error = build_dir + ": cannot store the built submission.so there (" + ec.message() + ")";
    return false;
  }
  return true;
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
    if (!build_in_private_folder(s, path, build_dir, nvcc, nvcc_flags, include_dir)) return s;
    so = (fs::path(build_dir) / "submission.so").string();
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
