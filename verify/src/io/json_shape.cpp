// A JSON value against a shape (json_shape.hpp): the first difference, named by file and field.
#include "rope2d/verify/json_shape.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "rope2d/ref/input.hpp"

namespace rope2d::verify {

using nlohmann::json;

namespace {

std::string joined(const std::string& parent, const std::string& key) { return parent.empty() ? key : parent + "." + key; }

// One type name ("int:0:4096" included) against a value.
bool is_type(const json& v, const std::string& t) {
  if (t == "any") return true;
  if (t == "null") return v.is_null();
  if (t == "string") return v.is_string();
  if (t == "bool") return v.is_boolean();
  if (t == "number") return v.is_number();
  if (t.rfind("number:", 0) == 0) {  // a finite number in [LO, HI]
    const std::size_t a = t.find(':', 7);
    if (a == std::string::npos) throw std::logic_error("json shape: bad type " + t);
    const double lo = std::stod(t.substr(7, a - 7)), hi = std::stod(t.substr(a + 1));
    if (!v.is_number()) return false;
    const double x = v.get<double>();
    return std::isfinite(x) && x >= lo && x <= hi;
  }
  if (t.rfind("string:", 0) == 0)  // a string of at most MAX bytes
    return v.is_string() && v.get_ref<const std::string&>().size() <= std::stoull(t.substr(7));
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "uint") return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  if (t.rfind("int", 0) == 0) {
    if (!v.is_number_integer()) return false;
    if (t == "int") return v.is_number_unsigned() ? v.get<std::uint64_t>() <= INT64_MAX : true;
    const std::size_t a = t.find(':', 4);
    if (t.size() < 5 || t[3] != ':' || a == std::string::npos) throw std::logic_error("json shape: bad type " + t);
    const std::int64_t lo = std::stoll(t.substr(4, a - 4)), hi = std::stoll(t.substr(a + 1));
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) return false;
    const std::int64_t x = v.get<std::int64_t>();
    return x >= lo && x <= hi;
  }
  throw std::logic_error("json shape: unknown type " + t);
}

std::string words(const std::string& alternatives) {
  std::string out;
  for (std::size_t at = 0;;) {
    const std::size_t bar = alternatives.find('|', at);
    std::string t = alternatives.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
    if (t.rfind("int:", 0) == 0 || t.rfind("number:", 0) == 0) {
      const bool integer = t[0] == 'i';
      const std::size_t b = integer ? 4 : 7, a = t.find(':', b);
      t = (integer ? "an integer in [" : "a finite number in [") + t.substr(b, a - b) + ", " + t.substr(a + 1) + "]";
    } else if (t.rfind("string:", 0) == 0) {
      t = "a string of at most " + t.substr(7) + " bytes";
    } else if (t == "uint") {
      t = "a non-negative integer";
    } else if (t == "int") {
      t = "an integer";
    } else if (t != "null") {
      t = (t == "object" || t == "array" ? "an " : "a ") + t;
    }
    out += (out.empty() ? "" : " or ") + t;
    if (bar == std::string::npos) return out;
    at = bar + 1;
  }
}

void check_scalar(const json& v, const std::string& type, const std::string& where, const std::string& field) {
  for (std::size_t at = 0;;) {
    const std::size_t bar = type.find('|', at);
    if (is_type(v, type.substr(at, bar == std::string::npos ? std::string::npos : bar - at))) return;
    if (bar == std::string::npos) break;
    at = bar + 1;
  }
  ref::bad_input(where, field.empty() ? "(top)" : field, words(type), ref::brief(v));
}

void check_object(const json& v, const json& shape, const std::string& where, const std::string& field) {
  if (v.is_null() && shape.value("|null", false)) return;
  if (!v.is_object()) ref::bad_input(where, field.empty() ? "(top)" : field, "an object", ref::brief(v));
  for (const auto& [key, sub] : shape.items()) {
    if (key == "*" || key == "|null") continue;
    const bool optional = key.back() == '?';
    const std::string name = optional ? key.substr(0, key.size() - 1) : key;
    const auto it = v.find(name);
    if (it == v.end()) {
      if (optional) continue;
      ref::bad_input(where, joined(field, name), sub.is_string() ? words(sub.get<std::string>()) : "present", "nothing (missing)");
    }
    check_shape(*it, sub, where, joined(field, name));
  }
  if (const auto rest = shape.find("*"); rest != shape.end())
    for (const auto& [key, x] : v.items())
      if (!shape.contains(key) && !shape.contains(key + "?")) check_shape(x, *rest, where, joined(field, key.substr(0, 60)));
}

}  // namespace

void check_shape(const json& value, const json& shape, const std::string& where, const std::string& field) {
  if (shape.is_string()) return check_scalar(value, shape.get<std::string>(), where, field);
  if (shape.is_object()) return check_object(value, shape, where, field);
  if (!shape.is_array() || shape.empty()) throw std::logic_error("json shape: expected a string, object or array");
  if (!value.is_array()) ref::bad_input(where, field.empty() ? "(top)" : field, "an array", ref::brief(value));
  if (shape.size() > 1 && value.size() != shape.size())
    ref::bad_input(where, field, "an array of " + std::to_string(shape.size()), ref::brief(value));
  for (std::size_t i = 0; i < value.size(); ++i)
    check_shape(value[i], shape.size() > 1 ? shape[i] : shape[0], where, field + "[" + std::to_string(i) + "]");
}

}  // namespace rope2d::verify
