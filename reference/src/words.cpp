// Words for messages (words.hpp).
#include "rope2d/ref/words.hpp"

namespace rope2d::ref {

std::string spoken_list(const std::vector<std::string_view>& words, std::string_view last_joint) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) s += i + 1 == words.size() ? last_joint : std::string_view(", ");
    s += words[i];
  }
  return s;
}

}  // namespace rope2d::ref
