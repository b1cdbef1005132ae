// The one reader of the verifier's JSON files (json_schema.hpp): the embedded schemas, checked
// with valijson, and valijson's errors turned into file, field, expected and found.
#define VALIJSON_USE_EXCEPTIONS 1
#include "rope2d/verify/json_schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "rope2d/ref/input.hpp"
#include "schema_texts.hpp"  // generated: every verify/schema/*.schema.json as a string

namespace rope2d::verify {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Each format's name and the deepest nesting its files may have (parse_json refuses deeper
// text before building anything).
struct FormatRow {
  JsonFormat format;
  std::string_view name;
  int max_depth = ref::max_json_depth;
};
constexpr FormatRow format_names[] = {
    {JsonFormat::report, "report"},
    {JsonFormat::nightly_shard, "nightly-shard"},
    {JsonFormat::nightly_summary, "nightly-summary"},
    {JsonFormat::nightly_config, "nightly-config"},
    {JsonFormat::golden_manifest, "golden-manifest"},
    {JsonFormat::definition, "definition"},
    {JsonFormat::solution, "solution"},
    {JsonFormat::sincosf_ulp, "sincosf-ulp"},
    {JsonFormat::layout, "layout", 6},  // top, batch, sequence, segment, image sides
};



// A schema three ways: valijson's (to validate), nlohmann's, and in the file's key order (to
// say what a field expects, its alternatives and allowed keys in the order they were written).
// A part is a wrapper {"definitions": the schema's, "$ref": "#/definitions/<part>"}.
struct Compiled {
  std::string text, part;
  ordered_json ordered;
  json doc;
  std::unique_ptr<valijson::Schema> schema;
};

Compiled compile(const std::string& text, const std::string& part, ordered_json ordered) {
  Compiled c{text, part, std::move(ordered), json(), std::make_unique<valijson::Schema>()};
  c.doc = json::parse(c.ordered.dump());
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(c.doc);
  parser.populateSchema(adapter, *c.schema);
  return c;
}

// Every format's schema and each of its definitions as a part, built once.
const std::vector<std::vector<Compiled>>& all_compiled() {
  static const std::vector<std::vector<Compiled>> all = [] {
    std::vector<std::vector<Compiled>> out;
    for (const FormatRow& row : format_names) {
      const std::string file = schema_file(row.format);
      const auto it = std::find_if(std::begin(embedded_schemas), std::end(embedded_schemas),
                                   [&](const EmbeddedSchema& e) { return file == e.file; });
      if (it == std::end(embedded_schemas)) throw std::logic_error("no embedded schema " + file);
      std::vector<Compiled> parts;
      parts.push_back(compile(it->text, "", ordered_json::parse(it->text)));
      const ordered_json definitions = parts.front().ordered.value("definitions", ordered_json::object());  // a copy: parts grows
      for (const auto& [key, _] : definitions.items())
        parts.push_back(compile(it->text, key, {{"definitions", definitions}, {"$ref", "#/definitions/" + key}}));
      out.push_back(std::move(parts));
    }
    return out;
  }();
  return all;
}

// format_names lists the formats in the enum's order.
const Compiled& compiled(JsonFormat f, std::string_view part = {}) {
  for (const Compiled& c : all_compiled().at(static_cast<std::size_t>(f)))
    if (c.part == part) return c;
  throw std::logic_error(schema_file(f) + " has no definition " + std::string(part));
}

// valijson reads an integer through int64_t: one above INT64_MAX (a uint64 seed) would wrap
// negative. Clamped to INT64_MAX for validation only: every bound a schema here writes lies
// below it, so each comparison comes out as it would for the true value.
bool has_huge(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
  if (v.is_structured())
    for (const json& x : v)
      if (has_huge(x)) return true;
  return false;
}

void clamp_huge(json& v) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) v = INT64_MAX;
  if (v.is_structured())
    for (json& x : v) clamp_huge(x);
}

const ordered_json* resolve(const ordered_json& root, const ordered_json* node) {
  for (int hops = 0; node && node->is_object() && node->contains("$ref") && hops < 16; ++hops) {
    const std::string ref = (*node)["$ref"].get<std::string>();
    if (ref.rfind("#", 0) != 0) return nullptr;
    const ordered_json::json_pointer ptr(ref.substr(1));
    node = root.contains(ptr) ? &root[ptr] : nullptr;
  }
  return node;
}

// The sub-schema a key (or array index) leads to from `node`, looking through anyOf/oneOf/allOf.
const ordered_json* child(const ordered_json& root, const ordered_json* node, const std::string& key, bool index) {
  node = resolve(root, node);
  if (!node || !node->is_object()) return nullptr;
  if (index && node->contains("items")) {
    const ordered_json& items = (*node)["items"];
    if (!items.is_array()) return &items;
    const std::size_t k = std::stoul(key);
    if (k < items.size()) return &items[k];
    return node->contains("additionalItems") ? &(*node)["additionalItems"] : nullptr;
  }
  if (!index && node->contains("properties") && (*node)["properties"].contains(key)) return &(*node)["properties"][key];
  if (!index && node->contains("additionalProperties") && (*node)["additionalProperties"].is_object())
    return &(*node)["additionalProperties"];
  for (const char* k : {"anyOf", "oneOf", "allOf"})
    if (node->contains(k))
      for (const ordered_json& branch : (*node)[k])
        if (const ordered_json* c = child(root, &branch, key, index)) return c;
  return nullptr;
}

// 1e7 as "10000000", not nlohmann's "10000000.0"; 3.4e38 as "3.4e+38".
std::string number_text(const ordered_json& v) {
  if (v.is_number_float() && std::abs(v.get<double>()) < 1e15 && v.get<double>() == std::floor(v.get<double>()))
    return std::to_string(static_cast<std::int64_t>(v.get<double>()));
  return v.dump();
}

std::string range_text(const ordered_json& n, const std::string& what) {
  const bool lo = n.contains("minimum"), hi = n.contains("maximum");
  if (lo && hi) return what + " in [" + number_text(n["minimum"]) + ", " + number_text(n["maximum"]) + "]";
  if (lo) return what + " >= " + number_text(n["minimum"]);
  if (hi) return what + " <= " + number_text(n["maximum"]);
  return what;
}

std::string type_text(const ordered_json& n, const std::string& type) {
  if (type == "integer") return range_text(n, "an integer");
  if (type == "number") return range_text(n, "a number");
  if (type == "boolean") return "true or false";
  if (type == "null") return "null";
  if (type == "object") return "an object";
  if (type == "array") {
    const auto lo = n.value("minItems", std::uint64_t{0}), hi = n.value("maxItems", UINT64_MAX);
    if (lo == hi) return "an array of " + std::to_string(lo);
    if (hi != UINT64_MAX) return "an array of at most " + std::to_string(hi);
    return lo > 0 ? "a non-empty array" : "an array";
  }
  if (type == "string") {
    std::string s = n.value("minLength", 0) > 0 ? "a non-empty string" : "a string";
    if (n.contains("maxLength")) s += " of at most " + number_text(n["maxLength"]) + " characters";
    if (n.contains("pattern")) s += " matching " + n["pattern"].get<std::string>();
    return s;
  }
  return "a " + type;
}

std::string join_or(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " or ") + p;
  return out;
}

// What a schema node expects, in words.
std::string expected_text(const ordered_json& root, const ordered_json* node) {
  node = resolve(root, node);
  if (!node || !node->is_object()) return "a valid value";
  const ordered_json& n = *node;
  if (n.contains("x-expected")) return n["x-expected"].get<std::string>();
  if (n.contains("const")) return n["const"].dump();
  std::vector<std::string> parts;
  if (n.contains("enum")) {
    for (const ordered_json& v : n["enum"]) parts.push_back(v.dump());
    return join_or(parts);
  }
  for (const char* k : {"anyOf", "oneOf"})
    if (n.contains(k)) {
      for (const ordered_json& branch : n[k]) parts.push_back(expected_text(root, &branch));
      return join_or(parts);
    }
  if (n.contains("type")) {
    if (n["type"].is_string()) return type_text(n, n["type"]);
    for (const ordered_json& t : n["type"]) parts.push_back(type_text(n, t));
    return join_or(parts);
  }
  return "a valid value";
}

// "only a, b and c": the keys an object without additional properties allows.
std::string allowed_keys(const ordered_json& root, const ordered_json* node) {
  node = resolve(root, node);
  std::vector<std::string> keys;
  if (node && node->contains("properties"))
    for (const auto& [k, _] : (*node)["properties"].items()) keys.push_back(k);
  std::string out = "only";
  for (std::size_t i = 0; i < keys.size(); ++i)
    out += (i == 0 ? " " : i + 1 == keys.size() ? " and " : ", ") + keys[i];
  return keys.empty() ? "no fields" : out;
}

// One of valijson's errors, its path as keys ("[spec]" -> "spec") and how it broke the rule.
enum class Kind { value, missing, unknown, duplicate };
struct Error {
  std::vector<std::string> path;
  Kind kind = Kind::value;
  std::string other;  // duplicate: the index of the first copy
};

std::string quoted_tail(const std::string& d, const std::string& lead) {
  return d.substr(lead.size(), d.size() - lead.size() - 2);  // drops the closing "'."
}

Error parse_error(const valijson::ValidationResults::Error& e) {
  Error out;
  for (std::size_t i = 1; i < e.context.size(); ++i) out.path.push_back(e.context[i].substr(1, e.context[i].size() - 2));
  const std::string& d = e.description;
  const std::string missing = "Missing required property '";
  const std::string unknown = "Object contains a property that could not be validated using 'properties' or 'additionalProperties' constraints: '";
  const std::string elements = "Elements at indexes #";
  if (d.rfind(missing, 0) == 0) {
    out.kind = Kind::missing;
    out.path.push_back(quoted_tail(d, missing));
  } else if (d.rfind(unknown, 0) == 0) {
    out.kind = Kind::unknown;
    out.path.push_back(quoted_tail(d, unknown));
  } else if (d.rfind(elements, 0) == 0 && d.find(" and #") != std::string::npos) {
    out.kind = Kind::duplicate;
    const std::size_t a = d.find(" and #");
    out.other = d.substr(elements.size(), a - elements.size());
    out.path.push_back(d.substr(a + 6, d.find(' ', a + 6) - a - 6));
  }
  return out;
}

// The field's name ("results[3].worst"), its value in the document, its schema node, and its
// place in the schema's order (each step's index among its object's listed properties, or
// its array index): problems are said in that order.
struct Located {
  std::string field;
  const json* value = nullptr;
  const ordered_json* node = nullptr;
  const ordered_json* parent = nullptr;
  std::vector<std::size_t> order;
};

std::size_t listed_at(const ordered_json& root, const ordered_json* node, const std::string& key) {
  node = resolve(root, node);
  if (node && node->contains("properties")) {
    std::size_t i = 0;
    for (const auto& [k, _] : (*node)["properties"].items()) {
      if (k == key) return i;
      ++i;
    }
  }
  return SIZE_MAX;  // a key the schema does not list: after those it does
}

Located locate(const json& doc, const ordered_json& schema, const std::vector<std::string>& path) {
  Located at{"", &doc, &schema, nullptr, {}};
  for (const std::string& key : path) {
    const bool index = at.value ? at.value->is_array() : !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
    if (index) at.field += "[" + key + "]";
    else at.field += (at.field.empty() ? "" : ".") + key.substr(0, 60);
    at.order.push_back(index ? std::stoul(key) : listed_at(schema, at.node, key));
    at.parent = at.node;
    at.node = child(schema, at.node, key, index);
    if (at.value && index) {
      const std::size_t k = std::stoul(key);
      at.value = k < at.value->size() ? &(*at.value)[k] : nullptr;
    } else if (at.value) {
      at.value = at.value->is_object() && at.value->contains(key) ? &(*at.value)[key] : nullptr;
    }
  }
  if (at.field.empty()) at.field = "(top)";
  return at;
}

SchemaProblem problem(const Located& at, const Compiled& c, const Error& e) {
  switch (e.kind) {
    case Kind::missing: return {at.field, expected_text(c.ordered, at.node), "nothing"};
    case Kind::unknown: return {at.field, allowed_keys(c.ordered, at.parent), "this field"};
    case Kind::duplicate: {
      const std::string first = at.field.substr(0, at.field.rfind('[')) + "[" + e.other + "]";
      return {at.field, "each value once", (at.value ? ref::brief(*at.value) : "a value") + " again (as " + first + ")"};
    }
    case Kind::value: return {at.field, expected_text(c.ordered, at.node), at.value ? ref::brief(*at.value) : "nothing"};
  }
  return {};
}

}  // namespace

std::string_view name(JsonFormat f) {
  for (const FormatRow& r : format_names)
    if (r.format == f) return r.name;
  throw std::logic_error("a JSON format without a name");
}

int json_max_depth(JsonFormat f) {
  for (const FormatRow& r : format_names)
    if (r.format == f) return r.max_depth;
  return ref::max_json_depth;
}

std::string schema_file(JsonFormat f) { return std::string(name(f)) + ".schema.json"; }

std::optional<JsonFormat> parse_json_format(std::string_view text) {
  for (const FormatRow& r : format_names)
    if (r.name == text) return r.format;
  return std::nullopt;
}

const std::string& schema_text(JsonFormat f) { return compiled(f).text; }

std::string SchemaProblem::line(const std::string& file) const {
  return file + ": " + field + ": expected " + expected + ", found " + found +
         (ours ? " (a limit of rope2d's own, not SOL-ExecBench's)" : "");
}

std::vector<SchemaProblem> schema_problems(const json& doc, JsonFormat f, std::string_view part) {
  const Compiled& c = compiled(f, part);
  json clamped;
  const json& target = has_huge(doc) ? (clamped = doc, clamp_huge(clamped), clamped) : doc;
  valijson::Validator validator;  // strong types: "1" is no integer, 1.0 no integer either
  valijson::adapters::NlohmannJsonAdapter adapter(target);
  if (validator.validate(*c.schema, adapter, nullptr)) return {};
  valijson::ValidationResults results;
  validator.validate(*c.schema, adapter, &results);
  std::vector<Error> errors;
  for (const auto& e : results) errors.push_back(parse_error(e));
  // The deepest error of each path: a parent's "failed to validate property" repeats its child's.
  std::vector<std::pair<Located, SchemaProblem>> found;
  std::set<std::string> seen;
  for (const Error& e : errors) {
    const bool has_child = std::any_of(errors.begin(), errors.end(), [&](const Error& o) {
      return o.path.size() > e.path.size() && std::equal(e.path.begin(), e.path.end(), o.path.begin());
    });
    if (has_child) continue;
    Located at = locate(doc, c.ordered, e.path);
    if (!seen.insert(at.field).second) continue;
    SchemaProblem p = problem(at, c, e);
    found.emplace_back(std::move(at), std::move(p));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first.order < b.first.order; });
  std::vector<SchemaProblem> out;
  for (auto& [_, p] : found) out.push_back(std::move(p));
  return out;
}

void check_json(const json& doc, JsonFormat f, const std::string& where, std::string_view part) {
  const std::vector<SchemaProblem> p = schema_problems(doc, f, part);
  if (!p.empty()) throw std::invalid_argument(p.front().line(where));
}

json read_json_file(const std::string& path, JsonFormat f) {
  json j = ref::parse_json(ref::read_file(path), path, json_max_depth(f));
  check_json(j, f, path);
  return j;
}

ordered_json read_ordered_json_file(const std::string& path, JsonFormat f) {
  const std::string text = ref::read_file(path);
  check_json(ref::parse_json(text, path, json_max_depth(f)), f, path);  // depth and duplicate keys checked there first
  return ordered_json::parse(text);
}

}  // namespace rope2d::verify
