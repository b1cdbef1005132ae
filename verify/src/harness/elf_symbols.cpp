// A shared object's defined functions, from its dynamic symbol table (elf_symbols.hpp).
#include "harness/elf_symbols.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace rope2d::verify::harness {

namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
struct ElfEnd {
  void operator()(Elf* e) const { elf_end(e); }
};

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw std::invalid_argument(path + ": cannot read its dynamic symbol table (" + why + ")");
}

std::string libelf_error() {
  const char* m = elf_errmsg(-1);
  return m ? m : "libelf gave no reason";
}

// The wanted names that one SHT_DYNSYM section defines as functions.
void defined_in(Elf* e, Elf_Scn* scn, const GElf_Shdr& sh, const std::vector<std::string>& wanted, std::set<std::string>& found) {
  Elf_Data* data = nullptr;
  while ((data = elf_getdata(scn, data)) != nullptr) {
    if (sh.sh_entsize == 0) return;
    const std::size_t n = data->d_size / sh.sh_entsize;
    for (std::size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
      const unsigned bind = GELF_ST_BIND(sym.st_info), type = GELF_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || type != STT_FUNC || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
      const char* name = elf_strptr(e, sh.sh_link, sym.st_name);
      if (!name) continue;  // a name outside its string table: no name of ours
      for (const std::string& w : wanted)
        if (w == name) found.insert(w);
    }
  }
}

}  // namespace

std::set<std::string> defined_functions(const std::string& path, const std::vector<std::string>& wanted) {
  if (elf_version(EV_CURRENT) == EV_NONE) refuse(path, "libelf: " + libelf_error());
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
  if (f.fd < 0) refuse(path, std::strerror(errno));
  const std::unique_ptr<Elf, ElfEnd> e(elf_begin(f.fd, ELF_C_READ, nullptr));
  if (!e || elf_kind(e.get()) != ELF_K_ELF) refuse(path, "not an ELF file");
  GElf_Ehdr eh;
  if (!gelf_getehdr(e.get(), &eh)) refuse(path, "its ELF header: " + libelf_error());
  if (eh.e_type != ET_DYN) refuse(path, "an ELF file, but no shared object");
  std::set<std::string> found;
  bool dynsym = false;
  for (Elf_Scn* scn = elf_nextscn(e.get(), nullptr); scn; scn = elf_nextscn(e.get(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) refuse(path, "a section header: " + libelf_error());
    if (sh.sh_type != SHT_DYNSYM) continue;
    dynsym = true;
    defined_in(e.get(), scn, sh, wanted, found);
  }
  if (!dynsym) refuse(path, "it has none");
  return found;
}

}  // namespace rope2d::verify::harness
