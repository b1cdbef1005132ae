// A shared object's defined functions, looked up as the dynamic loader looks them up
// (elf_symbols.hpp): through its program headers, never its section headers, which the loader
// does not read and a file may fill with tables of its own.
#include "harness/elf_symbols.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

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

// The file as the loader maps it: its PT_LOAD segments (virtual addresses to file offsets) and
// its PT_DYNAMIC entries. Every read is bounded by a segment's bytes in the file; one outside
// gives nothing, as the loader would find nothing there.
class LoadedImage {
 public:
  LoadedImage(Elf* e, const std::string& path) : e_(e) {
    std::size_t n = 0;
    if (elf_getphdrnum(e, &n) != 0) refuse(path, "its program headers: " + libelf_error());
    std::optional<GElf_Phdr> dynamic;
    for (std::size_t i = 0; i < n; ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(e, static_cast<int>(i), &ph)) refuse(path, "a program header: " + libelf_error());
      if (ph.p_type == PT_LOAD) loads_.push_back(ph);
      if (ph.p_type == PT_DYNAMIC && !dynamic) dynamic = ph;
    }
    if (!dynamic) refuse(path, "no dynamic segment");
    Elf_Data* d = elf_getdata_rawchunk(e, static_cast<int64_t>(dynamic->p_offset), dynamic->p_filesz, ELF_T_DYN);
    if (!d) refuse(path, "its dynamic segment lies outside the file");
    for (std::size_t i = 0;; ++i) {
      GElf_Dyn entry;
      if (!gelf_getdyn(d, static_cast<int>(i), &entry) || entry.d_tag == DT_NULL) break;
      if (!dynamic_.count(entry.d_tag)) dynamic_[entry.d_tag] = entry.d_un.d_val;  // the loader takes the first
    }
  }

  std::optional<GElf_Xword> entry(GElf_Sxword tag) const {
    const auto it = dynamic_.find(tag);
    return it == dynamic_.end() ? std::nullopt : std::optional(it->second);
  }

  // `bytes` bytes at virtual address `vaddr`, as items of `type`; nullptr outside the file.
  Elf_Data* at(GElf_Addr vaddr, std::size_t bytes, Elf_Type type) const {
    for (const GElf_Phdr& l : loads_)
      if (vaddr >= l.p_vaddr && vaddr - l.p_vaddr <= l.p_filesz && bytes <= l.p_filesz - (vaddr - l.p_vaddr))
        return elf_getdata_rawchunk(e_, static_cast<int64_t>(l.p_offset + (vaddr - l.p_vaddr)), bytes, type);
    return nullptr;
  }

 private:
  Elf* e_;
  std::vector<GElf_Phdr> loads_;
  std::map<GElf_Sxword, GElf_Xword> dynamic_;
};

// One 32-bit word of a hash table at `vaddr` + 4 * index.
std::optional<std::uint32_t> word(const LoadedImage& img, GElf_Addr vaddr, std::uint64_t index) {
  Elf_Data* d = img.at(vaddr + 4 * index, 4, ELF_T_WORD);
  if (!d || d->d_size < 4) return std::nullopt;
  std::uint32_t w;
  std::memcpy(&w, d->d_buf, 4);
  return w;
}

// The symbol indices the loader looks at for `name`, by the hash table the dynamic segment
// names: DT_GNU_HASH (its bloom filter first, as glibc does) or else DT_HASH. None where the
// table lies outside the file.
std::vector<std::uint32_t> candidates(const LoadedImage& img, const std::string& name, bool class64) {
  std::vector<std::uint32_t> out;
  if (const auto gnu = img.entry(DT_GNU_HASH)) {
    const auto nbuckets = word(img, *gnu, 0), symoffset = word(img, *gnu, 1), bloom_size = word(img, *gnu, 2),
               bloom_shift = word(img, *gnu, 3);
    if (!nbuckets || !symoffset || !bloom_size || !bloom_shift || *nbuckets == 0 || *bloom_size == 0) return out;
    std::uint32_t h = 5381;
    for (unsigned char c : name) h = h * 33 + c;
    const unsigned bits = class64 ? 64 : 32;
    const GElf_Addr bloom = *gnu + 16;
    const std::uint64_t k = (h / bits) % *bloom_size;
    // A bloom word is an address-sized word, which libelf gives in this machine's byte order.
    Elf_Data* d = img.at(bloom + k * (bits / 8), bits / 8, class64 ? ELF_T_XWORD : ELF_T_WORD);
    if (!d || d->d_size != bits / 8) return out;
    std::uint64_t w = 0;
    if (class64) std::memcpy(&w, d->d_buf, 8);
    else {
      std::uint32_t w32;
      std::memcpy(&w32, d->d_buf, 4);
      w = w32;
    }
    const std::uint64_t mask = (std::uint64_t{1} << (h % bits)) | (std::uint64_t{1} << ((h >> *bloom_shift) % bits));
    if ((w & mask) != mask) return out;
    const GElf_Addr buckets = bloom + std::uint64_t{*bloom_size} * (bits / 8), chain = buckets + 4 * std::uint64_t{*nbuckets};
    const auto first = word(img, buckets, h % *nbuckets);
    if (!first || *first < *symoffset) return out;
    for (std::uint32_t i = *first; out.size() < (1u << 20); ++i) {
      const auto hi = word(img, chain, i - *symoffset);
      if (!hi) break;
      if ((*hi | 1) == (h | 1)) out.push_back(i);
      if (*hi & 1) break;
    }
  } else if (const auto sysv = img.entry(DT_HASH)) {
    const auto nbucket = word(img, *sysv, 0), nchain = word(img, *sysv, 1);
    if (!nbucket || !nchain || *nbucket == 0) return out;
    std::uint32_t h = 0;
    for (unsigned char c : name) {
      h = (h << 4) + c;
      const std::uint32_t g = h & 0xf0000000u;
      if (g) h ^= g >> 24;
      h &= ~g;
    }
    auto i = word(img, *sysv, 2 + h % *nbucket);
    for (std::size_t steps = 0; i && *i != STN_UNDEF && *i < *nchain && steps < *nchain; ++steps) {
      out.push_back(*i);
      i = word(img, *sysv, 2 + std::uint64_t{*nbucket} + *i);
    }
  }
  return out;
}

// Whether symbol `index` is `name`, a function the loader would hand out for an unversioned
// lookup (dlsym): defined in the object (not undefined, not absolute), at an address, global or
// weak, visible, and not of a hidden version (name@V, which only a versioned lookup finds).
bool resolves(const LoadedImage& img, std::uint32_t index, const std::string& name, GElf_Addr symtab, GElf_Xword syment,
              GElf_Addr strtab, GElf_Xword strsz) {
  Elf_Data* d = img.at(symtab + std::uint64_t{index} * syment, syment, ELF_T_SYM);
  GElf_Sym sym;
  if (!d || !gelf_getsym(d, 0, &sym)) return false;
  const unsigned bind = GELF_ST_BIND(sym.st_info), type = GELF_ST_TYPE(sym.st_info), vis = GELF_ST_VISIBILITY(sym.st_other);
  if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS || sym.st_value == 0 || type != STT_FUNC ||
      (bind != STB_GLOBAL && bind != STB_WEAK) || (vis != STV_DEFAULT && vis != STV_PROTECTED))
    return false;
  if (sym.st_name >= strsz || strsz - sym.st_name < name.size() + 1) return false;
  Elf_Data* s = img.at(strtab + sym.st_name, name.size() + 1, ELF_T_BYTE);
  if (!s || std::memcmp(s->d_buf, name.c_str(), name.size() + 1) != 0) return false;
  if (const auto versym = img.entry(DT_VERSYM)) {
    Elf_Data* v = img.at(*versym + 2 * std::uint64_t{index}, 2, ELF_T_HALF);
    if (!v || v->d_size < 2) return false;
    std::uint16_t ver;
    std::memcpy(&ver, v->d_buf, 2);
    if ((ver & 0x8000) || (ver & 0x7fff) == 0) return false;  // hidden, or local
  }
  return true;
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
  const LoadedImage img(e.get(), path);
  const auto symtab = img.entry(DT_SYMTAB), strtab = img.entry(DT_STRTAB), strsz = img.entry(DT_STRSZ);
  if (!symtab || !strtab || !strsz) refuse(path, "its dynamic segment names no symbol or string table");
  const bool class64 = gelf_getclass(e.get()) == ELFCLASS64;
  const GElf_Xword syment = img.entry(DT_SYMENT).value_or(class64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym));
  if (syment != (class64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym))) refuse(path, "its symbol entries are not of the ELF size");
  std::set<std::string> found;
  for (const std::string& w : wanted)
    for (std::uint32_t i : candidates(img, w, class64))
      if (resolves(img, i, w, *symtab, syment, *strtab, *strsz)) found.insert(w);
  return found;
}

}  // namespace rope2d::verify::harness
