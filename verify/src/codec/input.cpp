// Reading untrusted files and JSON: see input.hpp.
#include "codec/input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>

namespace rope2d::verify {

using nlohmann::json;

void bad_input(const std::string& where, const std::string& field, const std::string& expected, const std::string& found) {
  throw std::invalid_argument(where + (field.empty() ? "" : ": " + field) + ": expected " + expected + ", found " + found);
}

InputFile::InputFile(const std::string& path, std::uint64_t max_bytes, Links links) : path_(path) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (links == Links::refuse ? O_NOFOLLOW : 0));
  if (fd_ < 0 && errno == ELOOP && links == Links::refuse)
    throw std::invalid_argument(path + ": expected a regular file, found a symbolic link");
  if (fd_ < 0) throw std::invalid_argument(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw std::invalid_argument(path + ": expected a regular file, found " +
                                (S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or special file"));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > max_bytes) {
    ::close(fd_);
    fd_ = -1;
    throw std::invalid_argument(path + ": expected at most " + std::to_string(max_bytes) + " bytes, found " +
                                std::to_string(size_));
  }
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_at(std::uint64_t offset, void* out, std::uint64_t n) const {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t k = ::pread(fd_, p, n > (1u << 30) ? (1u << 30) : n, static_cast<off_t>(offset));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw std::invalid_argument(path_ + ": read failed at byte " + std::to_string(offset) + " (truncated?)");
    p += k;
    offset += static_cast<std::uint64_t>(k);
    n -= static_cast<std::uint64_t>(k);
  }
}

std::string read_file(const std::string& path, std::uint64_t max_bytes, Links links) {
  InputFile f(path, max_bytes, links);
  std::string s(f.size(), '\0');
  f.read_at(0, s.data(), s.size());
  return s;
}

namespace {

// Nesting depth outside strings, before the parser builds anything.
void check_depth(const std::string& text, const std::string& where, int max_depth) {
  int depth = 0;
  bool in_string = false, escape = false;
  for (char c : text) {
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        bad_input(where, "JSON", "at most " + std::to_string(max_depth) + " levels of nesting", "more");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Duplicate keys, found in one SAX pass (nlohmann's callback parser walks the parent container
// at each value's end: quadratic in a long array of objects).
struct DuplicateKeys : nlohmann::json_sax<json> {
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!keys.back().insert(k).second) duplicate = k;
    return duplicate.empty();
  }
  bool end_object() override {
    keys.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

}  // namespace

json parse_json(const std::string& text, const std::string& where, int max_depth) {
  // What JSON parsers of other tools refuse is refused here too: a NUL byte (the parser would
  // take it as the end of the text, and anything after it unread) and a byte order mark.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    bad_input(where, "the text", "JSON text", "a NUL byte at byte " + std::to_string(nul));
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) bad_input(where, "the text", "JSON text without a byte order mark", "one");
  check_depth(text, where, max_depth);
  DuplicateKeys sax;
  json::sax_parse(text, &sax);
  if (!sax.duplicate.empty()) {  // the key quoted, escaped as JSON writes it where it is not plain text
    const std::string k = field_name(sax.duplicate);
    bad_input(where, "key " + (k.front() == '"' ? k : "\"" + k + "\""), "each key once", "it twice");
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    std::string why = std::string(e.what()).substr(0, 200);
    for (char& c : why)  // the parser quotes what it last read: shown as text, never as raw bytes
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    throw std::invalid_argument(where + ": not valid JSON: " + why);
  }
}

std::string brief(const json& v) {
  switch (v.type()) {
    case json::value_t::array: return "an array of " + std::to_string(v.size());
    case json::value_t::object: return "an object of " + std::to_string(v.size()) + " keys";
    case json::value_t::discarded: return "nothing";
    default: {
      std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
      if (s.size() > 60) s = s.substr(0, 57) + "...";
      return (v.is_string() ? "the string " : v.is_number() ? "the number " : "") + s;
    }
  }
}

std::string field_name(const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f && c != '"' && c != '\\';
  });
  if (plain) return key.substr(0, 60);
  return brief(json(key)).substr(std::string_view("the string ").size());
}

std::uint64_t parse_uint(const std::string& text, const std::string& where, std::uint64_t hi) {
  const std::string shown = brief(json(text));
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    bad_input(where, "", "a decimal integer", shown);
  std::uint64_t x = 0;
  for (char c : text) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (x > (UINT64_MAX - d) / 10) bad_input(where, "", "an integer at most " + std::to_string(hi), shown);
    x = x * 10 + d;
  }
  if (x > hi) bad_input(where, "", "an integer at most " + std::to_string(hi), shown);
  return x;
}

std::int64_t parse_int(const std::string& text, const std::string& where, std::int64_t lo, std::int64_t hi) {
  const bool neg = !text.empty() && text[0] == '-';
  const std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  std::uint64_t mag = 0;
  try {
    mag = parse_uint(neg ? text.substr(1) : text, where);
  } catch (const std::invalid_argument&) {
    bad_input(where, "", range, brief(json(text)));
  }
  if (mag > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) bad_input(where, "", range, brief(json(text)));
  const std::int64_t x = neg ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
  if (x < lo || x > hi) bad_input(where, "", range, brief(json(text)));
  return x;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& where) {
  std::int64_t r = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
    bad_input(where, "", "a non-negative size that fits in int64",
              std::to_string(a) + " x " + std::to_string(b));
  return r;
}

std::int64_t checked_product(const std::vector<std::int64_t>& shape, const std::string& where) {
  std::int64_t n = 1;
  for (auto s : shape) n = checked_mul(n, s, where);
  return n;
}

}  // namespace rope2d::verify
