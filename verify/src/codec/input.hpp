// Reading input that other people made: regular files only, opened without blocking and read
// up to a size limit; JSON with a bounded nesting depth and no duplicate keys; descriptions of
// offending values bounded in length; integer arithmetic checked for overflow. Every reader of
// the verifier (layouts, manifests, safetensors, solutions, configs, worst-case lists) goes
// through here, and its JSON files then through their schemas (json_schema.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rope2d::verify {

inline constexpr std::uint64_t max_json_file_bytes = 64ull << 20;  // layouts, manifests, configs
inline constexpr int max_json_depth = 64;

// Bad input: exit 2. The message names the file, the field, what was expected and what was found.
[[noreturn]] void bad_input(const std::string& where, const std::string& field, const std::string& expected,
                            const std::string& found);

// Whether a symbolic link as the path's last component is followed or refused (a file the
// verifier has itself placed, such as a submission copied for its box, is never a link).
enum class Links { follow, refuse };

// An open regular file (FIFOs, devices and directories refused without blocking; a symlink
// followed or refused as `links` says). Throws std::invalid_argument naming the path.
class InputFile {
 public:
  InputFile(const std::string& path, std::uint64_t max_bytes, Links links = Links::follow);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::uint64_t size() const { return size_; }
  // Exactly n bytes from offset; throws when the file is shorter (it changed under us).
  void read_at(std::uint64_t offset, void* out, std::uint64_t n) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

std::string read_file(const std::string& path, std::uint64_t max_bytes = max_json_file_bytes, Links links = Links::follow);

// Parses text as JSON: at most max_depth levels of nesting, no duplicate object keys.
nlohmann::json parse_json(const std::string& text, const std::string& where, int max_depth = max_json_depth);

// A bounded description of a value for messages: scalars as written (cut at 60 characters),
// containers as "an array of N" / "an object of N keys".
std::string brief(const nlohmann::json& v);

// A key of an untrusted object as a field's name in messages ("sweep", "sincosf.sin"): as
// written where it is printable ASCII without quotes or backslashes, else quoted and escaped as
// JSON writes it (a newline in it shown as \n); cut at 60 characters either way.
std::string field_name(const std::string& key);

// The whole text as a decimal integer in [lo, hi] (no sign tricks, no trailing characters).
std::int64_t parse_int(const std::string& text, const std::string& where, std::int64_t lo, std::int64_t hi);
std::uint64_t parse_uint(const std::string& text, const std::string& where, std::uint64_t hi = UINT64_MAX);

// a * b and the product of a shape, or std::invalid_argument naming `where` on overflow of int64.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& where);
std::int64_t checked_product(const std::vector<std::int64_t>& shape, const std::string& where);

}  // namespace rope2d::verify
