// Building submissions in the box and checking that they load there (submission.hpp).
#include "harness/submission.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "harness/elf_symbols.hpp"
#include "harness/kinds.hpp"
#include "codec/input.hpp"
#include "codec/shell_text.hpp"
#include "codec/atomic_file.hpp"
#include "codec/folder_file.hpp"
#include "codec/plain_text.hpp"
#include "rope2d/verify/codec/safetensors.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; }

// The caller's file `from` (followed where it is a link) put at `to` in a folder the box writes
// in, created whole and never through a link there (copy_file_atomic); "" or why not.
std::string into_box(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  const fs::path real = fs::canonical(from, ec);
  if (ec) return from.string() + ": " + ec.message();
  try {
    copy_file_atomic(real.string(), to.string());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// Bytes read once put at `to` in a folder the box writes in, created whole and never through a
// link there; "" or why not.
std::string write_into_box(const std::string& text, const fs::path& to) {
  try {
    write_file_atomic(to.string(), {text});
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The most bytes a kernel submission of `kind` may have, and the words of its refusal.
std::uint64_t size_limit(const harness::SubmissionKind& kind) {
  return kind.preparation == harness::Preparation::nvcc_build ? max_source_bytes : max_library_bytes;
}
std::string too_big(const harness::SubmissionKind& kind, std::uint64_t size) {
  return "expected a " + std::string(kind.suffix) + " submission of at most " + std::to_string(size_limit(kind) >> 20) +
         " MiB, found " + std::to_string(size) + " bytes";
}

// A submission file, read whole once (a source at most 32 MiB, a shared object at most 256 MiB:
// the size is judged by one stat before a byte is read) beneath its folder: a link may stay
// inside the folder, never lead out of it, since the verifier may hold rights the submitter
// lacks and would quote the file in its errors (definition.json is read the same way). `text`
// gets the bytes; "" or why not. `folder` is the submission's, opened once: its headers are read
// beneath the same descriptor (copy_headers).
std::string read_submission(const SubmitterFolder& folder, const std::string& name, const harness::SubmissionKind& kind,
                            std::string* text) {
  FolderFile f = folder.read(name, size_limit(kind));
  switch (f.found) {
    case FolderFile::Found::file:
      if (f.text.empty()) return "empty file";
      *text = std::move(f.text);
      return "";
    case FolderFile::Found::missing: return "no such file";
    case FolderFile::Found::outside: return "a link out of its folder (copy the file there, not a link to it)";
    case FolderFile::Found::not_regular: return "not a regular file";
    case FolderFile::Found::too_big: return too_big(kind, f.size);
    case FolderFile::Found::unreadable: return f.error;
  }
  return "unreadable";
}

// The names a source's #include lines give literally, quoted or angled ("x.h", <sub/y.cuh>),
// wherever the lines stand (an #if 0 does not hide one: more is found, never less).
std::vector<std::string> included_names(const std::string& text) {
  std::vector<std::string> names;
  for (std::size_t b = 0; b < text.size();) {
    const std::size_t e = std::min(text.find('\n', b), text.size());
    std::size_t i = text.find_first_not_of(" \t", b);
    if (i < e && text[i] == '#') {
      i = text.find_first_not_of(" \t", i + 1);
      if (i < e && text.compare(i, 7, "include") == 0) {
        i = text.find_first_not_of(" \t", i + 7);
        if (i < e && (text[i] == '"' || text[i] == '<')) {
          const std::size_t close = text.find(text[i] == '"' ? '"' : '>', i + 1);
          if (close < e && close > i + 1) names.push_back(text.substr(i + 1, close - i - 1));
        }
      }
    }
    b = e + 1;
  }
  return names;
}

// The headers a source includes from beside it, copied into the box's scratch folder with
// their relative paths: those its #include lines name, then those theirs name, looked up as
// the build does (beside the including file, then in the source's folder), each a regular
// file inside the source's folder reached through no link; at most 512 files and 32 MiB. The
// box never needs to see the submission's folder, and nothing there that the source does not
// name is copied: the folder may hold other files (another submission's, in an inbox under a
// hidden home) that the box must not read.
void copy_headers(const SubmitterFolder& root, const std::string& text, const fs::path& to, Submission& s) {
  std::error_code ec;
  std::set<std::string> copied;  // relative to root
  std::vector<std::pair<std::string, fs::path>> pending{{text, fs::path()}};  // a file's text, its folder relative to root
  std::size_t bytes = 0;
  while (!pending.empty()) {
    const auto [text, folder] = std::move(pending.back());
    pending.pop_back();
    for (const std::string& name : included_names(text)) {
      for (const fs::path& rel : {(folder / name).lexically_normal(), fs::path(name).lexically_normal()}) {
        if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") continue;  // not beside the source
        if (copied.count(rel.string())) break;  // a regular file when it was copied
        if (*rel.begin() == "submission.cu") {  // the name of the source's own copy beside them
          if (copied.insert(rel.string()).second)
            s.warnings.push_back("the header " + plain_line(rel.string()) + " was not copied for the build: submission.cu "
                                 "is the name the verifier gives the source's copy");
          break;
        }
        // Opened beneath the source's folder (the descriptor it was read from), through no
        // link, and read from that descriptor: a check of the name and then an open of it, or
        // the folder opened again by its path, would let a link swapped in between lead out.
        FolderFile f = root.read(rel.string(), 32u << 20, FolderLinks::none);
        if (f.found == FolderFile::Found::missing || f.found == FolderFile::Found::not_regular) continue;
        // A file of that name that is not copied is said, once: its build's "not found" would
        // not tell why. The next place the build would look is tried still.
        if (f.found != FolderFile::Found::file) {
          if (copied.insert(rel.string()).second)
            s.warnings.push_back(fmt::format(
                "the header {} was not copied for the build: {}", plain_line(rel.string()),
                f.found == FolderFile::Found::outside  ? "it is a link (headers are copied as regular files reached through no link)"
                : f.found == FolderFile::Found::too_big ? fmt::format("larger than 32 MiB ({} bytes)", f.size)
                                                        : "unreadable (" + plain_line(f.error) + ")"));
          continue;
        }
        copied.insert(rel.string());
        std::string header = std::move(f.text);
        if (copied.size() > 512 || (bytes += header.size()) > (32u << 20)) {
          s.warnings.push_back("only the first headers the source includes were copied for its build (at most 512 files, 32 MiB)");
          return;
        }
        fs::create_directories((to / rel).parent_path(), ec);
        try {
          write_file_atomic((to / rel).string(), {header});
        } catch (const std::invalid_argument& e) {  // a header of that name was a folder's (x and x/y.h)
          s.warnings.push_back(fmt::format("the header {} was not copied for the build: {}", plain_line(rel.string()), plain_line(e.what())));
        }
        pending.emplace_back(std::move(header), rel.parent_path());
        break;  // the first place the build would find it
      }
    }
  }
}

// nvcc runs its sub-steps through `sh -c` with absolute paths in double quotes, where $(...)
// and backticks expand: the source is compiled as a copy named src/submission.cu in the scratch
// folder, beside copies of its headers (in src/, apart from the verifier's own files in the
// scratch folder: the ABI header in include/, the watcher, the built object, which no header
// name can replace), inside the box, with relative paths only. No name taken from the
// submission, the report folder or a config reaches nvcc. False (s.error set) on failure.
bool build_in_box(Submission& s, const SubmitterFolder& folder, const std::string& text, const BuildOptions& o) {
  const std::string& path = s.path;
  const fs::path work = o.box.scratch;
  std::error_code ec;
  fs::create_directories(work / "src", ec);
  copy_headers(folder, text, work / "src", s);
  fs::create_directories(work / "include" / "rope2d", ec);
  std::string why = into_box(fs::path(o.include_dir) / "rope2d" / "rope2d_backward.h", work / "include" / "rope2d" / "rope2d_backward.h");
  if (why.empty()) why = write_into_box(text, work / "src" / "submission.cu");
  if (!why.empty()) {
    s.error = path + ": cannot copy it to build it (" + why + ")";
    return false;
  }
  std::vector<std::string> argv{o.nvcc, "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", "-Iinclude", "-Isrc"};
  for (const auto& f : o.nvcc_flags) {
    argv.push_back(f);
    if (f.find("fast_math") != std::string::npos || f.find("fast-math") != std::string::npos)
      s.warnings.push_back("compiled with " + f + ": sin/cos become hardware approximations, inaccurate beyond a few radians");
  }
  argv.insert(argv.end(), {"-o", "submission.so", "src/submission.cu"});
  s.compile_command = shell_join(argv);  // quoted so it can be pasted (in a folder holding the copies)
  harness::BoxPolicy box = o.box;
  box.limits.wall_s = o.timeout_s;
  const harness::BoxResult r = harness::run_boxed(argv, box);
  s.refused.add(r.refused);
  s.compile_log = r.text();
  if (r.output_bytes > r.output.size())
    s.compile_log += "\n[" + std::to_string(r.output_bytes - r.output.size()) + " more bytes of output not kept]";
  if (!r.started) {
    s.error = "cannot run nvcc (" + r.start_error + "): " + s.compile_command;
    s.error_cause = Cause::build;
    return false;
  }
  if (r.timed_out) {
    s.error = "compilation did not end within " + std::to_string(static_cast<long>(o.timeout_s)) + " s (killed; --build-timeout):\n" +
              s.compile_log.substr(0, 4000);
    s.error_cause = Cause::timeout;
    return false;
  }
  if (!r.ok()) {
    s.error = "compilation failed (" + r.exit_text() + "):\n" + s.compile_log;
    s.error_cause = Cause::build;
    return false;
  }
  return true;
}

}  // namespace

void empty_build_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) return;  // nothing, or what require_output_tree refuses
  // Its own: submission.so, and the temporary copy of a run killed while it wrote one.
  const auto ours = [](const std::string& name) {
    return name == "submission.so" || (name.size() == 21 && name.rfind(".submission.so.", 0) == 0);
  };
  std::vector<fs::path> remove;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!ours(e.path().filename().string()) || !fs::is_regular_file(e.symlink_status()))
      bad_input(dir, "the folder", "a folder for the built submission.so that rope2d made, or none",
                "a folder of other files (" + plain_line(e.path().filename().string()) + ")");
    remove.push_back(e.path());
  }
  for (const fs::path& p : remove) fs::remove(p, ec);
}

void check_submission_size(const std::string& path) {
  const harness::SubmissionKind* kind = harness::kind_of(path);
  if (!kind || kind->host != harness::Host::kernel) return;
  // One stat of the file opened (a sparse file of 8 GiB is refused without a byte of it read).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::invalid_argument(path + ": cannot open it (" + std::strerror(errno) + ")");
  struct stat st {};
  const int rc = ::fstat(fd, &st);
  ::close(fd);
  if (rc != 0) throw std::invalid_argument(path + ": cannot stat it (" + std::strerror(errno) + ")");
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > size_limit(*kind))
    throw std::invalid_argument(path + ": " + too_big(*kind, static_cast<std::uint64_t>(st.st_size)));
}

Submission prepare_submission(const std::string& path, const BuildOptions& o) {
  Submission s;
  s.path = path;
  const fs::path lib = fs::path(o.box.scratch) / "submission.so";
  std::error_code ec;
  const harness::SubmissionKind* kind = harness::kind_of(path);
  if (!kind || kind->host != harness::Host::kernel) {
    s.error = path + ": expected a C ABI submission (" + harness::kind_suffixes() + ", by the ending of its name)";
    return s;
  }
  std::string text;  // what is built or loaded and hashed: the file as read here, once
  const SubmitterFolder folder = o.folder ? *o.folder : SubmitterFolder(fs::path(path).parent_path().string());  // opened once
  if (const std::string why = read_submission(folder, fs::path(path).filename().string(), *kind, &text); !why.empty()) {
    s.error = path + ": " + why;
    return s;
  }
  s.sha256 = sha256_bytes(text);
  s.kind = std::string(kind->name);
  s.symbol = std::string(kind->symbol), s.fused_symbol = std::string(kind->fused_symbol);
  if (kind->preparation == harness::Preparation::nvcc_build) {
    if (!build_in_box(s, folder, text, o)) return s;
    if (!fs::is_regular_file(fs::symlink_status(lib, ec))) {
      s.error = "nvcc left no regular submission.so";
      s.error_cause = Cause::build;
      return s;
    }
    // A built object is held to a given one's limit (it is copied into the report folder).
    if (const std::uint64_t size = fs::file_size(lib, ec); !ec && size > max_library_bytes) {
      s.error = "the built submission.so is " + std::to_string(size) + " bytes, over the " + std::to_string(max_library_bytes >> 20) +
                " MiB a shared object submission may have";
      s.error_cause = Cause::build;
      return s;
    }
    // The built object kept beside the report (a copy: the box's folder is removed at the end),
    // written as every output is: a regular file created whole, never through a link.
    try {
      make_output_folder(o.build_dir);
      copy_file_atomic(lib.string(), (fs::path(o.build_dir) / "submission.so").string());
    } catch (const std::invalid_argument& e) {
      s.error = o.build_dir + ": cannot store the built submission.so there (" + e.what() + ")";
      return s;
    }
  } else {  // Preparation::copy_library
    if (const std::string why = write_into_box(text, lib); !why.empty()) {
      s.error = path + ": cannot copy it into the box (" + why + ")";
      return s;
    }
  }
  fs::permissions(lib, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, ec);
  s.library = lib.string();
  return s;
}

namespace {

// The judge's own reading of the library's dynamic symbol table: "" when it defines the kind's
// entry point, else why not. Read before the box's load check runs, so that nothing the
// submission does at load can change the file read.
std::string symbol_in_file(const Submission& s) {
  try {
    if (harness::defined_functions(s.library, {s.symbol}).count(s.symbol)) return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "missing symbol " + s.symbol + ": " + s.path + " (built as " + fs::path(s.library).filename().string() +
         ") gives no function " + s.symbol + " to the loader's lookup (its dynamic symbol table read as the loader reads it)";
}

}  // namespace

std::string probe_submission(Submission& s, const std::string& host_program, const harness::BoxPolicy& box, double timeout_s) {
  harness::BoxPolicy p = box;
  p.limits.wall_s = timeout_s;
  const std::string in_file = symbol_in_file(s);
  const harness::BoxResult r = harness::run_boxed({host_program, "probe", s.library, s.symbol, s.fused_symbol}, p);
  s.refused.add(r.refused);
  // "found" only when the box's load check and the file agree: the load check is the
  // submission's word (a constructor that calls _exit(0) makes it say found).
  if (r.ok())
    return in_file.empty() ? "" : in_file + " (the box's load check claimed it found " + s.symbol + ": the box's claim does not match the file)";
  const std::string said = plain_text(r.output.substr(0, 4000));
  if (r.timed_out) return fmt::format("loading did not end within {:g} s (killed; --load-timeout)", p.limits.wall_s);
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3)
    return "missing symbol " + s.symbol + ": " + said +
           (in_file.empty() ? " (though the verifier's own lookup in the file's dynamic symbol table finds it)" : "");
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 4) return said.empty() ? "cannot load" : said;
  return "the load check ended with " + r.exit_text() + (said.empty() ? "" : ": " + said);
}

ByteCompile byte_compile_in_box(const Solution& s, const std::string& python, const harness::BoxPolicy& box, double timeout_s,
                                harness::Refusals* refused) {
  ByteCompile b;
  // The copy's paths, relative to the scratch folder (the box's working folder): none starts
  // with '-', so none is read as an option.
  std::vector<std::string> argv{python, "-I", "-c",
                                "import sys\nfor f in sys.argv[1:]:\n    compile(open(f, 'rb').read(), f, 'exec', dont_inherit=True)\n"};
  for (const std::string& f : s.sources)
    if (ends_with(f, ".py")) argv.push_back((fs::path("solution") / f).string()), ++b.files;
  if (b.files == 0) return b;
  // Links copied as links (never followed out of the folder); the verifier wrote the folder.
  const fs::path copy = fs::path(box.scratch) / "solution";
  std::error_code ec;
  fs::copy(s.dir, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) {
    b.error = "cannot copy its sources into the box: " + ec.message();
    return b;
  }
  harness::give_to_box(copy.string());
  harness::BoxPolicy p = box;
  p.limits.wall_s = timeout_s;
  const harness::BoxResult r = harness::run_boxed(argv, p);
  if (refused) refused->add(r.refused);
  if (!r.started) {
    b.error = "cannot start " + python + ": " + r.start_error;
    return b;
  }
  // 127: the box's first program found no such program on the box's PATH.
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127) {
    b.error = "no " + python + " in the box: " + r.text();
    return b;
  }
  b.ran = true;
  if (!r.ok()) {
    std::string tail = r.text();
    if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
    b.error = r.exit_text() + (r.timed_out ? ", over its time limit" : "") + ": " + tail;
  }
  return b;
}

std::string kernel_host_program(const std::string& scratch) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = ec ? fs::path("rope2d-kernel-host") : exe.parent_path() / "rope2d-kernel-host";
  // Copied again after a build there: never through a link the folder may hold.
  const fs::path copy = fs::path(scratch) / "host";
  if (const std::string why = into_box(installed, copy); !why.empty())
    throw std::runtime_error("cannot copy the kernel host " + installed.string() + " into the box: " + why);
  fs::permissions(copy, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec, ec);
  return copy.string();
}

}  // namespace rope2d::verify
