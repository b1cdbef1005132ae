// What a shared object's dynamic symbol table defines, read from the file by the judge itself
// (with libelf), never by loading it: a submission's constructor runs at load, and the box's
// own load check is the submission's word, which a constructor can forge (an _exit(0) there
// reads as "found").
#pragma once

#include <set>
#include <string>
#include <vector>

namespace rope2d::verify::harness {

// The names among `wanted` that the ELF shared object at `path` gives to an unversioned lookup
// (dlsym) as functions, found as the dynamic loader finds them: through the program headers'
// dynamic segment (DT_SYMTAB, DT_STRTAB, DT_GNU_HASH or DT_HASH, DT_VERSYM), never the section
// headers, which the loader does not read; a function defined in the object at an address
// (STT_FUNC, not undefined or absolute), bound GLOBAL or WEAK, visible, not of a hidden version.
// The file is opened once, through no link, and read; invalid_argument naming the file when it
// cannot be opened or is no ELF shared object with a dynamic segment that libelf can read.
std::set<std::string> defined_functions(const std::string& path, const std::vector<std::string>& wanted);

}  // namespace rope2d::verify::harness
