// The registry of submission kinds (harness/kinds.hpp): the one table from a file's name to
// its kind, and a format the verifier does not ship added as one line (add_submission_kind,
// as a line of kinds.cpp's table would be): a shared object whose entry point is named
// rope2d_backward_v2, made ready and loaded by the kernel host in the box like any other.
#include "harness/kinds.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>

#include "harness/elf_symbols.hpp"
#include "harness/harness.hpp"
#include "harness/sandbox.hpp"
#include "harness/submission.hpp"

namespace fs = std::filesystem;
using namespace rope2d::verify;
using namespace rope2d::verify::harness;

TEST(SubmissionKinds, EachFileNameHasOneKind) {
  std::set<std::string_view> suffixes, names;
  for (const SubmissionKind& k : submission_kinds()) {
    EXPECT_TRUE(suffixes.insert(k.suffix).second) << k.suffix << " twice";
    EXPECT_TRUE(names.insert(k.name).second) << k.name << " twice";
  }
  ASSERT_NE(kind_of("kernel.cu"), nullptr);
  EXPECT_EQ(kind_of("kernel.cu")->preparation, Preparation::nvcc_build);
  EXPECT_EQ(kind_of("dir.cu/libkernel.so")->preparation, Preparation::copy_library);
  EXPECT_EQ(kind_of("solution.json")->host, Host::python);
  EXPECT_EQ(kind_of("kernel.txt"), nullptr);
  EXPECT_EQ(kind_of(".so"), nullptr);  // an ending alone names no file of that kind
  EXPECT_EQ(kind_suffixes(), ".cu, .so or .json");
}

#ifdef ROPE2D_HARNESSES_IN_LIBRARY  // a build without CUDA (CMakeLists.txt): the sanitizer stage
TEST(SubmissionKinds, AHarnessKeepsItsKindWhileTheRegistryGrows) {
  // A harness made for a file keeps its kind whatever is added to the registry later (the table
  // may move in memory as it grows: the sanitizer build reads freed memory if a harness held on
  // to the table's entry). Control: a kind added is found.
  HarnessOptions kernel_o, python_o;
  kernel_o.submission = "kernel.cu";
  python_o.submission = "solution.json";
  const std::unique_ptr<Harness> kernel = harness_for(kernel_o), python = harness_for(python_o);
  const std::string kernel_kind(kernel->kind()), python_kind(python->kind());
  static std::vector<std::string> endings(256);  // the added kinds' texts, never moved
  for (std::size_t i = 0; i < endings.size(); ++i) {
    endings[i] = ".grown" + std::to_string(i) + ".so";
    add_submission_kind({"grown", endings[i], Preparation::copy_library, Host::kernel});
  }
  EXPECT_EQ(kind_of("lib.grown255.so")->suffix, ".grown255.so");
  EXPECT_EQ(kernel->kind(), kernel_kind);
  EXPECT_EQ(python->kind(), python_kind);
  EXPECT_EQ(kernel_kind, kind_of("kernel.cu")->name);
  EXPECT_EQ(python_kind, kind_of("solution.json")->name);
}
#endif

namespace {

// The box of a load check, as the verifier's (no GPU needed).
BoxPolicy load_box(const Scratch& s) {
  BoxPolicy p;
  p.scratch = s.path();
  p.env = box_environment(s.path());
  p.limits.wall_s = 60;
  return p;
}

}  // namespace

TEST(SubmissionKinds, ANewFormatIsOneLine) {
  // The line: a shared object ending .v2.so, whose entry point is rope2d_backward_v2.
  add_submission_kind({"shared-object (v2 entry point)", ".v2.so", Preparation::copy_library, Host::kernel, "rope2d_backward_v2",
                       "rope2d_backward_v2_fused"});
  EXPECT_THROW(add_submission_kind({"again", ".v2.so", Preparation::copy_library, Host::kernel}), std::invalid_argument);
  EXPECT_EQ(kind_of("libkernel.v2.so")->symbol, "rope2d_backward_v2");  // the longest ending wins
  EXPECT_EQ(kind_of("libkernel.so")->symbol, "rope2d_backward");
  if (!probe_sandbox().available) GTEST_SKIP() << "no box here: " << probe_sandbox().reason;
  const fs::path dir = fs::temp_directory_path() / ("rope2d_kinds_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path v2 = dir / "libmine.v2.so";
  fs::copy_file(ROPE2D_V2_LIBRARY, v2, fs::copy_options::overwrite_existing);
  {
    const Scratch s;
    Submission sub = prepare_submission(v2.string(), {.box = load_box(s)});
    ASSERT_EQ(sub.error, "");
    EXPECT_EQ(sub.kind, "shared-object (v2 entry point)");
    EXPECT_EQ(probe_submission(sub, kernel_host_program(s.path()), load_box(s)), "") << "the kernel host did not load it";
  }
  {
    // The control: the same library as a kind whose entry point it lacks.
    add_submission_kind({"shared-object (v3 entry point)", ".v3.so", Preparation::copy_library, Host::kernel, "rope2d_backward_v3"});
    const fs::path v3 = dir / "libmine.v3.so";
    fs::copy_file(ROPE2D_V2_LIBRARY, v3, fs::copy_options::overwrite_existing);
    const Scratch s;
    Submission sub = prepare_submission(v3.string(), {.box = load_box(s)});
    ASSERT_EQ(sub.error, "");
    EXPECT_NE(probe_submission(sub, kernel_host_program(s.path()), load_box(s)).find("missing symbol rope2d_backward_v3"),
              std::string::npos);
  }
  fs::remove_all(dir);
}

namespace {

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_whole(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

}  // namespace

TEST(SubmissionKinds, TheBoxsFoundIsCheckedAgainstTheFile) {
  // The judge's own reading of the symbol table, without loading: the kind's entry point.
  EXPECT_EQ(defined_functions(ROPE2D_V2_LIBRARY, {"rope2d_backward_v2", "rope2d_backward"}), std::set<std::string>{"rope2d_backward_v2"});
  EXPECT_TRUE(defined_functions(ROPE2D_EXIT_AT_LOAD_LIBRARY, {"rope2d_backward", "not_the_entry_point"}).count("not_the_entry_point"));
  EXPECT_FALSE(defined_functions(ROPE2D_EXIT_AT_LOAD_LIBRARY, {"rope2d_backward"}).count("rope2d_backward"));
  if (!probe_sandbox().available) GTEST_SKIP() << "no box here: " << probe_sandbox().reason;
  const fs::path dir = fs::temp_directory_path() / ("rope2d_forged_found_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path lib = dir / "libforged.so";
  fs::copy_file(ROPE2D_EXIT_AT_LOAD_LIBRARY, lib, fs::copy_options::overwrite_existing);
  const Scratch s;
  Submission sub = prepare_submission(lib.string(), {.box = load_box(s)});
  ASSERT_EQ(sub.error, "");
  // Its constructor's _exit(0) makes the box's load check say found; the file says otherwise.
  const std::string why = probe_submission(sub, kernel_host_program(s.path()), load_box(s));
  EXPECT_NE(why.find("missing symbol rope2d_backward: " + lib.string()), std::string::npos) << why;
  EXPECT_NE(why.find("the box's claim does not match the file"), std::string::npos) << why;
  fs::remove_all(dir);
}

namespace {

// What the loader hands out for each name: dlsym's answer told from its error (an absolute
// symbol at 0 is handed out as a null address, with no error).
std::set<std::string> handed_out(const char* lib, const std::vector<std::string>& names) {
  void* h = ::dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) ADD_FAILURE() << ::dlerror();
  std::set<std::string> out;
  for (const std::string& n : names) {
    ::dlerror();
    (void)::dlsym(h, n.c_str());
    if (h && !::dlerror()) out.insert(n);
  }
  if (h) ::dlclose(h);
  return out;
}

// A section of `b` by name and the index of its header (the test's way to find a table to
// spoil, not the verifier's).
std::optional<std::pair<Elf64_Shdr, std::size_t>> section(const std::string& b, const std::string& name) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  const auto header = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, b.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    return sh;
  };
  const Elf64_Shdr names = header(eh.e_shstrndx);
  for (std::size_t i = 0; i < eh.e_shnum; ++i)
    if (b.c_str() + names.sh_offset + header(i).sh_name == name) return std::pair(header(i), i);
  return std::nullopt;
}

void put_word(std::string& b, std::size_t at, std::uint32_t w) { std::memcpy(b.data() + at, &w, 4); }

// `lib` with a table the loader never reads: its .symtab (not loaded) retyped SHT_DYNSYM, and
// the name of its function not_the_entry_point in .strtab (not loaded) rewritten as
// rope2d_backward. False when the file lacks either section or that name.
bool forge_section_table(const fs::path& lib) {
  std::string b = read_whole(lib);
  const auto symtab = section(b, ".symtab"), strtab = section(b, ".strtab");
  if (!symtab || !strtab) return false;
  const Elf64_Shdr& st = strtab->first;
  const std::size_t at = std::string_view(b).substr(st.sh_offset, st.sh_size).find(std::string_view("not_the_entry_point\0", 20));
  if (at == std::string::npos) return false;
  std::memcpy(b.data() + st.sh_offset + at, "rope2d_backward", 16);
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  const Elf64_Word dynsym = SHT_DYNSYM;
  std::memcpy(b.data() + eh.e_shoff + symtab->second * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_type), &dynsym, sizeof dynsym);
  write_whole(lib, b);
  return true;
}

}  // namespace

// The verifier's lookup is the loader's: for each name, found exactly where dlsym hands it out,
// in libraries whose tables name the entry point without the loader handing it out (a hidden
// version) and in those that do, through a GNU hash table or a SysV one alone. None of these
// has a constructor: dlopen is safe.
TEST(SubmissionKinds, TheLookupIsTheLoaders) {
  const std::vector<std::string> names{"rope2d_backward", "rope2d_backward_v2", "not_there"};
  for (const char* lib : {ROPE2D_V2_LIBRARY, ROPE2D_V2_SYSV_LIBRARY, ROPE2D_HIDDEN_VERSION_LIBRARY}) {
    const std::set<std::string> by_loader = handed_out(lib, names);
    EXPECT_EQ(defined_functions(lib, names), by_loader) << lib;
    EXPECT_EQ(by_loader, std::set<std::string>{"rope2d_backward_v2"}) << lib << ": the library is not what this test needs";
  }
  // An absolute symbol at 0, which the loader hands out (a null address): no code of the object,
  // so no entry point; the one place the verifier asks more than the loader, by policy.
  EXPECT_EQ(handed_out(ROPE2D_ABSOLUTE_SYMBOL_LIBRARY, names), (std::set<std::string>{"rope2d_backward", "rope2d_backward_v2"}));
  EXPECT_EQ(defined_functions(ROPE2D_ABSOLUTE_SYMBOL_LIBRARY, names), std::set<std::string>{"rope2d_backward_v2"});
}

// Hash tables that never end (a SysV chain that loops on itself under a chain count of 2^32 - 1;
// a GNU chain of words that never say "last", every bloom bit set) are walked a bounded number
// of steps: the lookup ends at once with nothing, never loops or grows without end.
TEST(SubmissionKinds, EndlessHashChainsEndTheLookup) {
  const fs::path dir = fs::temp_directory_path() / ("rope2d_endless_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string sysv = read_whole(ROPE2D_V2_SYSV_LIBRARY), gnu = read_whole(ROPE2D_V2_LIBRARY);
  const auto hash = section(sysv, ".hash"), gnu_hash = section(gnu, ".gnu.hash");
  ASSERT_TRUE(hash && gnu_hash) << "the test libraries lack their hash sections";
  // The loop's symbol: the first of the table that is not the name looked up (the order of
  // the table is the linker's, and differs between builds).
  const auto dynsym = section(sysv, ".dynsym"), dynstr = section(sysv, ".dynstr");
  ASSERT_TRUE(dynsym && dynstr);
  std::uint32_t other = 1;
  for (; other < dynsym->first.sh_size / sizeof(Elf64_Sym); ++other) {
    Elf64_Sym sym;
    std::memcpy(&sym, sysv.data() + dynsym->first.sh_offset + other * sizeof sym, sizeof sym);
    if (std::string(sysv.c_str() + dynstr->first.sh_offset + sym.st_name) != "rope2d_backward_v2") break;
  }
  const std::size_t h = hash->first.sh_offset;
  std::uint32_t nbucket;
  std::memcpy(&nbucket, sysv.data() + h, 4);
  put_word(sysv, h + 4, 0xffffffffu);                                                    // nchain
  for (std::uint32_t k = 0; k < nbucket; ++k) put_word(sysv, h + 8 + 4 * k, other);    // every bucket: that symbol
  put_word(sysv, h + 8 + 4 * nbucket + 4 * other, other);                               // its chain: itself
  const std::size_t g = gnu_hash->first.sh_offset;
  std::uint32_t nbuckets, symoffset, bloom_size;
  std::memcpy(&nbuckets, gnu.data() + g, 4);
  std::memcpy(&symoffset, gnu.data() + g + 4, 4);
  std::memcpy(&bloom_size, gnu.data() + g + 8, 4);
  const std::size_t bloom = g + 16, buckets = bloom + 8 * std::size_t{bloom_size};
  std::memset(gnu.data() + bloom, 0xff, 8 * std::size_t{bloom_size});                // every name may be there
  for (std::uint32_t k = 0; k < nbuckets; ++k) put_word(gnu, buckets + 4 * k, symoffset);
  for (std::size_t at = buckets + 4 * std::size_t{nbuckets}; at + 4 <= g + gnu_hash->first.sh_size; at += 4) put_word(gnu, at, 0);
  write_whole(dir / "libsysv.so", sysv);
  write_whole(dir / "libgnu.so", gnu);
  for (const char* name : {"libsysv.so", "libgnu.so"}) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(defined_functions((dir / name).string(), {"rope2d_backward_v2"}), std::set<std::string>{}) << name;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0) << name;
  }
  fs::remove_all(dir);
}

// Tables in the section headers alone are not believed: the loader reads none of them.
TEST(SubmissionKinds, ASymbolTableTheLoaderNeverReadsIsNotBelieved) {
  const fs::path dir = fs::temp_directory_path() / ("rope2d_section_table_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path lib = dir / "libforged.so";
  fs::copy_file(ROPE2D_EXIT_AT_LOAD_LIBRARY, lib, fs::copy_options::overwrite_existing);
  ASSERT_TRUE(forge_section_table(lib)) << "the test library has no .symtab naming not_the_entry_point";
  EXPECT_EQ(defined_functions(lib.string(), {"rope2d_backward", "not_the_entry_point"}), std::set<std::string>{"not_the_entry_point"});
  fs::remove_all(dir);
}

TEST(SubmissionKinds, AMalformedLibraryIsRefusedByName) {
  const fs::path dir = fs::temp_directory_path() / ("rope2d_bad_elf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path bad = dir / "libbad.so";
  const auto refusal = [&] {
    try {
      defined_functions(bad.string(), {"rope2d_backward"});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  write_whole(bad, "not an ELF file at all");
  EXPECT_EQ(refusal(), bad.string() + ": cannot read its dynamic symbol table (not an ELF file)");
  // Read through the one reader: a symlink (even to a good library), a FIFO (without waiting
  // for a writer) and a folder are refused, each named.
  fs::remove(bad);
  fs::create_symlink(ROPE2D_V2_LIBRARY, bad);
  EXPECT_EQ(refusal(), bad.string() + ": cannot read its dynamic symbol table (expected a regular file, found a symbolic link)");
  fs::remove(bad);
  ASSERT_EQ(::mkfifo(bad.c_str(), 0600), 0);
  EXPECT_EQ(refusal(), bad.string() + ": cannot read its dynamic symbol table (expected a regular file, found a FIFO)");
  fs::remove(bad);
  fs::create_directory(bad);
  EXPECT_EQ(refusal(), bad.string() + ": cannot read its dynamic symbol table (expected a regular file, found a directory)");
  fs::remove(bad);
  // A real library cut short, or with bytes of its headers and tables overwritten, anywhere:
  // refused or read, never a crash.
  const std::string good = read_whole(ROPE2D_V2_LIBRARY);
  for (std::size_t n = 0; n < good.size(); n += std::max<std::size_t>(1, good.size() / 97)) {
    write_whole(bad, good.substr(0, n));
    EXPECT_NE(refusal(), "") << n;
  }
  for (std::size_t at = 0; at < good.size(); at += 7) {
    std::string mangled = good;
    for (std::size_t k = at; k < std::min(good.size(), at + 8); ++k) mangled[k] = static_cast<char>(0xff);
    write_whole(bad, mangled);
    EXPECT_NE(refusal(), "") << at;
  }
  fs::remove_all(dir);
}

TEST(SubmissionKinds, ATooLargeFileIsRefusedBeforeItIsRead) {
  const fs::path dir = fs::temp_directory_path() / ("rope2d_huge_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Sparse files: their sizes cost no disk.
  const fs::path cu = dir / "huge.cu", so = dir / "libhuge.so", fits = dir / "fits.cu";
  write_whole(cu, "x"), write_whole(so, "x"), write_whole(fits, "x");
  fs::resize_file(cu, std::uint64_t{8} << 30);
  fs::resize_file(so, max_library_bytes + 1);
  fs::resize_file(fits, max_source_bytes);
  const std::string cu_says = cu.string() + ": expected a .cu submission of at most 32 MiB, found 8589934592 bytes";
  try {
    check_submission_size(cu.string());
    ADD_FAILURE() << "an 8 GiB source was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(e.what(), cu_says);
  }
  EXPECT_THROW(check_submission_size(so.string()), std::invalid_argument);
  EXPECT_NO_THROW(check_submission_size(fits.string()));
  const Scratch s;
  EXPECT_EQ(prepare_submission(cu.string(), {.box = load_box(s)}).error, cu_says);
  EXPECT_NE(prepare_submission(so.string(), {.box = load_box(s)}).error.find("at most 256 MiB, found 268435457 bytes"), std::string::npos);
  fs::remove_all(dir);
}
