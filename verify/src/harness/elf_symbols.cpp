// A shared object's entry points, looked up as the dynamic loader looks them up for dlsym
// (elf_symbols.hpp): glibc's do_lookup_x and check_match (elf/dl-lookup.c) over what the
// program headers map, never the section headers, which the loader does not read and a file
// may fill with tables of its own. The file is read into memory once; every walk is bounded,
// whatever its tables say.
#include "harness/elf_symbols.hpp"

#include <gelf.h>
#include <libelf.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "codec/input.hpp"

namespace rope2d::verify::harness {

namespace {

constexpr std::uint64_t max_file_bytes = std::uint64_t{256} << 20;  // a shared object submission's limit
constexpr std::size_t max_loads = 64;                               // honest objects have four or five
constexpr std::uint32_t max_chain_steps = 1u << 20;                 // far beyond any honest hash chain

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

// The whole file, read once through the one reader (a regular file, never a symlink, at most
// max_file_bytes), of this machine's byte order (the only order its loader maps).
std::string read_whole(const std::string& path) {
  try {
    return read_file(path, max_file_bytes, Links::refuse);
  } catch (const std::invalid_argument& e) {
    const std::string why = e.what();  // "<path>: ...": the path once, in refuse's words
    refuse(path, why.rfind(path + ": ", 0) == 0 ? why.substr(path.size() + 2) : why);
  }
}

// The file as the loader maps it: its PT_LOAD segments (a later one over an earlier, as a later
// fixed mapping replaces one), the last PT_DYNAMIC's entries (the last of each tag, as glibc's
// elf_get_dynamic_info keeps), read at its address through those segments. A read outside the
// segments' bytes in the file gives nothing: no table is believed there.
class LoadedImage {
 public:
  LoadedImage(Elf* e, std::string_view file, const std::string& path) : file_(file), class64_(gelf_getclass(e) == ELFCLASS64) {
    std::size_t n = 0;
    if (elf_getphdrnum(e, &n) != 0) refuse(path, "its program headers: " + libelf_error());
    std::optional<GElf_Phdr> dynamic;
    for (std::size_t i = 0; i < n; ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(e, static_cast<int>(i), &ph)) refuse(path, "a program header: " + libelf_error());
      if (ph.p_type == PT_DYNAMIC) dynamic = ph;
      if (ph.p_type != PT_LOAD) continue;
      if (loads_.size() == max_loads) refuse(path, "more than 64 loadable segments");
      if (ph.p_offset <= file.size() && ph.p_filesz <= file.size() - ph.p_offset) loads_.push_back(ph);
    }
    if (!dynamic) refuse(path, "no dynamic segment");
    const std::size_t entry = class64_ ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
    const std::span<const char> d = at(dynamic->p_vaddr, dynamic->p_filesz);
    if (d.empty()) refuse(path, "its dynamic segment lies outside what is loaded from the file");
    for (std::size_t k = 0; k + entry <= d.size(); k += entry) {
      const std::int64_t tag = class64_ ? read<std::int64_t>(d, k) : read<std::int32_t>(d, k);
      const std::uint64_t value = class64_ ? read<std::uint64_t>(d, k + 8) : read<std::uint32_t>(d, k + 4);
      if (tag == DT_NULL) break;
      for (Tag& t : tags_)
        if (t.tag == tag) t.value = value;
    }
  }

  bool class64() const { return class64_; }
  std::optional<std::uint64_t> entry(std::int64_t tag) const {
    for (const Tag& t : tags_)
      if (t.tag == tag) return t.value;
    return std::nullopt;
  }

  // The `bytes` bytes loaded at virtual address `vaddr`, or none where they are not all loaded
  // from the file by one segment.
  std::span<const char> at(std::uint64_t vaddr, std::uint64_t bytes) const {
    for (auto l = loads_.rbegin(); l != loads_.rend(); ++l)
      if (vaddr >= l->p_vaddr && vaddr - l->p_vaddr < l->p_memsz) {
        const std::uint64_t into = vaddr - l->p_vaddr;
        if (into > l->p_filesz || bytes > l->p_filesz - into) return {};
        return {file_.data() + l->p_offset + into, static_cast<std::size_t>(bytes)};
      }
    return {};
  }

  // A value of this machine's byte order at byte `k` of `s` (k + sizeof(T) <= s.size()).
  template <class T>
  static T read(std::span<const char> s, std::size_t k) {
    T v;
    std::memcpy(&v, s.data() + k, sizeof v);
    return v;
  }

  std::optional<std::uint32_t> word(std::uint64_t vaddr) const {
    const std::span<const char> s = at(vaddr, 4);
    return s.empty() ? std::nullopt : std::optional(read<std::uint32_t>(s, 0));
  }

 private:
  struct Tag {
    std::int64_t tag;
    std::optional<std::uint64_t> value;
  };
  std::string_view file_;
  bool class64_;
  std::vector<GElf_Phdr> loads_;
  std::vector<Tag> tags_{{DT_SYMTAB, {}}, {DT_STRTAB, {}},  {DT_STRSZ, {}},  {DT_SYMENT, {}}, {DT_HASH, {}},
                         {DT_GNU_HASH, {}}, {DT_VERSYM, {}}, {DT_VERDEF, {}}, {DT_VERNEED, {}}};
};

// One symbol of the dynamic table, as check_match reads it.
struct Symbol {
  std::uint32_t name;
  unsigned char info, other;
  std::uint16_t shndx;
  std::uint64_t value;
};

std::optional<Symbol> symbol(const LoadedImage& img, std::uint64_t symtab, std::uint32_t index) {
  const std::uint64_t size = img.class64() ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
  const std::span<const char> s = img.at(symtab + std::uint64_t{index} * size, size);
  if (s.empty()) return std::nullopt;
  if (img.class64()) {
    Elf64_Sym e;
    std::memcpy(&e, s.data(), sizeof e);
    return Symbol{e.st_name, e.st_info, e.st_other, e.st_shndx, e.st_value};
  }
  Elf32_Sym e;
  std::memcpy(&e, s.data(), sizeof e);
  return Symbol{e.st_name, e.st_info, e.st_other, e.st_shndx, e.st_value};
}

// glibc's lookup of `name` in one object for dlsym: each symbol of its hash chain in turn
// through check_match (a value or absolute or TLS; a code or data type; the name; versions:
// one of a defined version is kept aside, a hidden one never taken), the first that passes
// decides; else the one versioned symbol seen, if exactly one. nullopt: the loader hands
// nothing out from this object.
class Lookup {
 public:
  Lookup(const LoadedImage& img, const std::string& name) : img_(img), name_(name) {
    symtab_ = img.entry(DT_SYMTAB).value_or(0);
    strtab_ = img.entry(DT_STRTAB).value_or(0);
    strsz_ = img.entry(DT_STRSZ).value_or(0);
    // The version table counts only where versions are defined or needed (glibc's l_versyms).
    if (img.entry(DT_VERDEF) || img.entry(DT_VERNEED)) versym_ = img.entry(DT_VERSYM);
  }

  std::optional<Symbol> run() {
    if (img_.entry(DT_GNU_HASH)) gnu();  // preferred where present, with no fall back (as glibc)
    else if (img_.entry(DT_HASH)) sysv();
    if (!found_ && versions_ == 1) found_ = versioned_;
    return found_;
  }

 private:
  // True when the walk stops here: symbol `index` passed check_match.
  bool check(std::uint32_t index) {
    const std::optional<Symbol> s = symbol(img_, symtab_, index);
    if (!s) return false;
    const unsigned type = ELF64_ST_TYPE(s->info);
    if (s->value == 0 && s->shndx != SHN_ABS && type != STT_TLS) return false;
    constexpr unsigned allowed = (1u << STT_NOTYPE) | (1u << STT_OBJECT) | (1u << STT_FUNC) | (1u << STT_COMMON) |
                                 (1u << STT_TLS) | (1u << STT_GNU_IFUNC);
    if (type > 31 || !((1u << type) & allowed)) return false;
    if (s->name >= strsz_ || strsz_ - s->name < name_.size() + 1) return false;
    const std::span<const char> text = img_.at(strtab_ + s->name, name_.size() + 1);
    if (text.empty() || std::memcmp(text.data(), name_.c_str(), name_.size() + 1) != 0) return false;
    if (versym_) {
      const std::span<const char> v = img_.at(*versym_ + 2 * std::uint64_t{index}, 2);
      if (v.empty()) return false;
      const auto ver = LoadedImage::read<std::uint16_t>(v, 0);
      if ((ver & 0x7fff) >= 2) {  // of a defined version: taken only as the one such, and never hidden
        if (!(ver & 0x8000) && versions_++ == 0) versioned_ = s;
        return false;
      }
    }
    found_ = s;
    return true;
  }

  void gnu() {
    const std::uint64_t table = *img_.entry(DT_GNU_HASH);
    const auto nbuckets = img_.word(table), symoffset = img_.word(table + 4), bloom_size = img_.word(table + 8),
               shift = img_.word(table + 12);
    if (!nbuckets || !symoffset || !bloom_size || !shift || *nbuckets == 0 || *bloom_size == 0) return;
    std::uint32_t h = 5381;
    for (unsigned char c : name_) h = h * 33 + c;
    const unsigned bits = img_.class64() ? 64 : 32;
    const std::uint64_t bloom = table + 16;
    // The word glibc reads: its index masked by bloom_size - 1 (a power of two in a linker's table).
    const std::span<const char> w = img_.at(bloom + (std::uint64_t{h / bits} & (*bloom_size - 1)) * (bits / 8), bits / 8);
    if (w.empty()) return;
    const std::uint64_t word = bits == 64 ? LoadedImage::read<std::uint64_t>(w, 0) : LoadedImage::read<std::uint32_t>(w, 0);
    const std::uint64_t mask = (std::uint64_t{1} << (h % bits)) | (std::uint64_t{1} << ((h >> (*shift & 31)) % bits));
    if ((word & mask) != mask) return;
    const std::uint64_t buckets = bloom + std::uint64_t{*bloom_size} * (bits / 8);
    const std::uint64_t chain = buckets + 4 * std::uint64_t{*nbuckets};
    const auto first = img_.word(buckets + 4 * std::uint64_t{h % *nbuckets});
    if (!first || *first == 0 || *first < *symoffset) return;  // an empty bucket
    for (std::uint64_t i = *first; i - *first < max_chain_steps && i <= UINT32_MAX; ++i) {
      const auto hi = img_.word(chain + 4 * (i - *symoffset));
      if (!hi) return;
      if (((*hi ^ h) >> 1) == 0 && check(static_cast<std::uint32_t>(i))) return;
      if (*hi & 1) return;
    }
  }

  void sysv() {
    const std::uint64_t table = *img_.entry(DT_HASH);
    const auto nbucket = img_.word(table);  // glibc reads no bound from nchain: neither does this walk
    if (!nbucket || *nbucket == 0) return;
    std::uint32_t h = 0;
    for (unsigned char c : name_) {
      h = (h << 4) + c;
      const std::uint32_t g = h & 0xf0000000u;
      h ^= g >> 24;
      h &= ~g;
    }
    auto i = img_.word(table + 8 + 4 * std::uint64_t{h % *nbucket});
    for (std::uint32_t steps = 0; i && *i != STN_UNDEF && steps < max_chain_steps; ++steps) {
      if (check(*i)) return;
      i = img_.word(table + 8 + 4 * (std::uint64_t{*nbucket} + *i));
    }
  }

  const LoadedImage& img_;
  const std::string& name_;
  std::uint64_t symtab_ = 0, strtab_ = 0, strsz_ = 0;
  std::optional<std::uint64_t> versym_;
  std::optional<Symbol> found_, versioned_;
  int versions_ = 0;
};

}  // namespace

std::set<std::string> defined_functions(const std::string& path, const std::vector<std::string>& wanted) {
  if (elf_version(EV_CURRENT) == EV_NONE) refuse(path, "libelf: " + libelf_error());
  std::string file = read_whole(path);
  const std::unique_ptr<Elf, ElfEnd> e(elf_memory(file.data(), file.size()));
  if (!e || elf_kind(e.get()) != ELF_K_ELF) refuse(path, "not an ELF file");
  GElf_Ehdr eh;
  if (!gelf_getehdr(e.get(), &eh)) refuse(path, "its ELF header: " + libelf_error());
  if (eh.e_type != ET_DYN) refuse(path, "an ELF file, but no shared object");
  if (eh.e_ident[EI_DATA] != (std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB))
    refuse(path, "not of this machine's byte order, which alone its loader maps");
  const LoadedImage img(e.get(), file, path);
  if (!img.entry(DT_SYMTAB) || !img.entry(DT_STRTAB) || !img.entry(DT_STRSZ))
    refuse(path, "its dynamic segment names no symbol or string table");
  const std::uint64_t entry_size = img.class64() ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
  if (img.entry(DT_SYMENT).value_or(entry_size) != entry_size)
    refuse(path, "its symbol entries are not of the ELF size");
  std::set<std::string> found;
  for (const std::string& w : wanted) {
    const std::optional<Symbol> s = Lookup(img, w).run();
    if (!s) continue;
    // The loader hands out a global, weak or unique definition (a local one ends the lookup in
    // this object with nothing). Of those, an entry point is code of the object: a function,
    // an indirect one or one of no type (assembly without .type), not absolute, visible.
    const unsigned bind = ELF64_ST_BIND(s->info), type = ELF64_ST_TYPE(s->info), vis = ELF64_ST_VISIBILITY(s->other);
    const bool handed_out = bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
    const bool code = (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE) && s->shndx != SHN_ABS &&
                      s->shndx != SHN_UNDEF && (vis == STV_DEFAULT || vis == STV_PROTECTED);
    if (handed_out && code) found.insert(w);
  }
  return found;
}

}  // namespace rope2d::verify::harness
