// What a shared object's dynamic symbol table defines, read from the file by the judge itself
// (with libelf), never by loading it: a submission's constructor runs at load, and the box's
// own load check is the submission's word, which a constructor can forge (an _exit(0) there
// reads as "found").
#pragma once

#include <set>
#include <string>
#include <vector>

namespace rope2d::verify::harness {

// The names among `wanted` that the ELF shared object at `path` hands out to dlsym as code:
// looked up as glibc's loader does (its program headers' dynamic segment, the GNU hash table
// where there is one, else the SysV one, the version table where versions are defined or
// needed; never the section headers, which the loader does not read), then held to what an
// entry point is: a global, weak or unique function (or indirect function, or a symbol of no
// type) defined in the object, not absolute, visible. The file (at most 256 MiB, of this
// machine's byte order) is opened once, through no link, and read into memory; every walk over
// its tables is bounded. invalid_argument naming the file when it cannot be read or is no ELF
// shared object with a dynamic segment.
std::set<std::string> defined_functions(const std::string& path, const std::vector<std::string>& wanted);

}  // namespace rope2d::verify::harness
