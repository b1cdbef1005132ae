// A worst-case list's file read through the one reader (worst_list.hpp).
#include "codec/worst_list.hpp"

#include "codec/input.hpp"

namespace rope2d::verify {

ref::WorstList read_worst_list(const std::string& path, int fields) {
  return ref::parse_worst_list(read_file(path, max_worst_list_bytes), path, fields);
}

}  // namespace rope2d::verify
