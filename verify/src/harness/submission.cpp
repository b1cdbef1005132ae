// Building submissions in the box and checking that they load there (submission.hpp).
#include "harness/submission.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/safetensors.hpp"

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

// nvcc runs its sub-steps through `sh -c` with absolute paths in double quotes, where $(...)
// and backticks expand: the source is compiled as a copy named submission.cu in the scratch
// folder, whose path we choose, inside the box. No name taken from the submission, the report
// folder or a config reaches nvcc. False (s.error set) on failure.
bool build_in_box(Submission& s, const std::string& path, const BuildOptions& o) {
  const std::string work = o.box.scratch;
  std::error_code ec;
  fs::copy_file(path, fs::path(work) / "submission.cu", fs::copy_options::overwrite_existing, ec);
  if (ec) {
    s.error = path + ": cannot copy it to build it (" + ec.message() + ")";
    return false;
  }
  std::vector<std::string> argv{o.nvcc, "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC"};
  if (shell_safe(o.include_dir)) argv.push_back("-I" + o.include_dir);
  else s.warnings.push_back("the ABI header's folder is not on the include path: its name holds characters that nvcc's shell would interpret");
  const std::string src_dir = fs::absolute(path).parent_path().string();
  if (shell_safe(src_dir)) argv.push_back("-I" + src_dir);  // headers beside the source
  else s.warnings.push_back("headers beside the source are not on the include path: its folder's name holds characters "
                            "that nvcc's shell would interpret");
  for (const auto& f : o.nvcc_flags) {
    argv.push_back(f);
    if (f.find("fast_math") != std::string::npos || f.find("fast-math") != std::string::npos)
      s.warnings.push_back("compiled with " + f + ": sin/cos become hardware approximations, inaccurate beyond a few radians");
  }
  argv.insert(argv.end(), {"-o", "submission.so", "submission.cu"});
  s.compile_command = ref::shell_join(argv);  // quoted so it can be pasted
  harness::BoxPolicy box = o.box;
  box.reveal.insert(box.reveal.end(), {o.include_dir, src_dir});
  box.limits.wall_s = o.timeout_s;
  const harness::BoxResult r = harness::run_boxed(argv, box);
  s.compile_log = r.output;
  if (r.output_bytes > r.output.size())
    s.compile_log += "\n[" + std::to_string(r.output_bytes - r.output.size()) + " more bytes of output not kept]";
  if (!r.started) {
    s.error = "cannot run nvcc (" + r.start_error + "): " + s.compile_command;
    return false;
  }
  if (r.timed_out) {
    s.error = "compilation did not end within " + std::to_string(static_cast<long>(o.timeout_s)) + " s (killed; --build-timeout):\n" +
              s.compile_log.substr(0, 4000);
    return false;
  }
  if (!r.ok()) {
    s.error = "compilation failed (" + r.exit_text() + "):\n" + s.compile_log;
    return false;
  }
  return true;
}

}  // namespace

Submission prepare_submission(const std::string& path, const BuildOptions& o) {
  Submission s;
  s.path = path;
  if (!fs::is_regular_file(path) || fs::file_size(path) == 0) {
    s.error = path + (fs::is_regular_file(path) ? ": empty file" : ": no such file");
    return s;
  }
  s.sha256 = sha256_file(path);
  const fs::path lib = fs::path(o.box.scratch) / "submission.so";
  std::error_code ec;
  if (ends_with(path, ".cu")) {
    s.kind = "cuda-source";
    if (!build_in_box(s, path, o)) return s;
    if (!fs::is_regular_file(fs::symlink_status(lib, ec))) {
      s.error = "nvcc left no regular submission.so";
      return s;
    }
    // The built object kept beside the report (a copy: the box's folder is removed at the end).
    fs::create_directories(o.build_dir, ec);
    if (!ec) fs::copy_file(lib, fs::path(o.build_dir) / "submission.so", fs::copy_options::overwrite_existing, ec);
    if (ec) {
      s.error = o.build_dir + ": cannot store the built submission.so there (" + ec.message() + ")";
      return s;
    }
  } else if (ends_with(path, ".so")) {
    s.kind = "shared-object";
    fs::copy_file(path, lib, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      s.error = path + ": cannot copy it into the box (" + ec.message() + ")";
      return s;
    }
  } else {
    s.error = path + ": expected a CUDA source (.cu) or a shared object (.so)";
    return s;
  }
  fs::permissions(lib, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, ec);
  s.library = lib.string();
  return s;
}

std::string probe_submission(const Submission& s, const std::string& host_program, const harness::BoxPolicy& box) {
  harness::BoxPolicy p = box;
  p.reveal.push_back(fs::path(host_program).parent_path().string());
  if (p.limits.wall_s <= 0) p.limits.wall_s = 120;
  const harness::BoxResult r = harness::run_boxed({host_program, "probe", s.library}, p);
  if (r.ok()) return "";
  const std::string said = r.output.substr(0, 4000);
  if (r.timed_out) return "loading did not end within " + std::to_string(static_cast<long>(p.limits.wall_s)) + " s (killed)";
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3) return "missing symbol rope2d_backward: " + said;
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 4) return said.empty() ? "cannot load" : said;
  return "the load check ended with " + r.exit_text() + (said.empty() ? "" : ": " + said);
}

std::string kernel_host_program() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "rope2d-kernel-host" : (exe.parent_path() / "rope2d-kernel-host").string();
}

}  // namespace rope2d::verify
