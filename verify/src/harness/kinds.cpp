// The registry of submission kinds (kinds.hpp): a new format is one line in `built_in`.
#include "harness/kinds.hpp"

#include <stdexcept>
#include <string_view>
#include <vector>

#include "rope2d/ref/words.hpp"

namespace rope2d::verify::harness {

namespace {

constexpr SubmissionKind built_in[] = {
    {"cuda-source", ".cu", Preparation::nvcc_build, Host::kernel},
    {"shared-object", ".so", Preparation::copy_library, Host::kernel},
    {"sol-execbench solution", ".json", Preparation::solution, Host::python},
};

std::vector<SubmissionKind>& registry() {
  static std::vector<SubmissionKind> kinds(std::begin(built_in), std::end(built_in));
  return kinds;
}

}  // namespace

std::span<const SubmissionKind> submission_kinds() { return registry(); }

void add_submission_kind(const SubmissionKind& k) {
  if (k.suffix.empty() || k.name.empty() || k.symbol.empty())
    throw std::invalid_argument("a submission kind needs a name, an ending and an entry point");
  if ((k.host == Host::own) != (k.make != nullptr))
    throw std::invalid_argument("a submission kind has a harness of its own (make) exactly when its host is Host::own");
  for (const SubmissionKind& other : registry())
    if (other.suffix == k.suffix) throw std::invalid_argument("the ending " + std::string(k.suffix) + " is " + std::string(other.name) + "'s");
  registry().push_back(k);
}

const SubmissionKind* kind_of(std::string_view path) {
  const SubmissionKind* best = nullptr;
  for (const SubmissionKind& k : registry())
    if (path.size() > k.suffix.size() && path.ends_with(k.suffix) && (!best || k.suffix.size() > best->suffix.size()))
      best = &k;
  return best;
}

std::string kind_suffixes() {
  std::vector<std::string_view> words;
  for (const SubmissionKind& k : submission_kinds()) words.push_back(k.suffix);
  return ref::spoken_list(words);
}

}  // namespace rope2d::verify::harness
