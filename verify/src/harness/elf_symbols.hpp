// What a shared object's dynamic symbol table defines, read from the file by the judge itself
// (with libelf), never by loading it: a submission's constructor runs at load, and the box's
// own load check is the submission's word, which a constructor can forge (an _exit(0) there
// reads as "found").
#pragma once

#include <set>
#include <string>
#include <vector>

namespace rope2d::verify::harness {

// The names among `wanted` that the ELF shared object at `path` defines in its dynamic symbol
// table as functions (STT_FUNC, bound GLOBAL or WEAK, in a section: not undefined). The file
// is opened once, through no link, and read; invalid_argument naming the file when it cannot
// be opened or is no ELF shared object that libelf can read (a malformed one included).
std::set<std::string> defined_functions(const std::string& path, const std::vector<std::string>& wanted);

}  // namespace rope2d::verify::harness
