// The one reader of the verifier's JSON files (json_schema.hpp): the embedded schemas, checked
// with valijson, and valijson's errors turned into file, field, expected and found.
#define VALIJSON_USE_EXCEPTIONS 1
#include "codec/json_schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "codec/input.hpp"
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
  int max_depth = max_json_depth;
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
    {JsonFormat::safetensors_header, "safetensors-header", 3},  // {name: {shape: [...]}}
    {JsonFormat::bench_torch, "bench-torch", 4},                // top, workloads, a workload, its times
};



// A schema three ways: valijson's (to validate), nlohmann's, and in the file's key order (to
// say what a field expects, its alternatives and allowed keys in the order they were written).
// A part is a wrapper {"definitions": the schema's, "$ref": "#/definitions/<part>"}.
// Its sub-schemas by JSON pointer are compiled when first needed (schema_at).
struct SubSchemas {
  std::mutex mutex;
  std::map<std::string, std::pair<json, std::unique_ptr<valijson::Schema>>> at;
};
struct Compiled {
  std::string text, part;
  ordered_json ordered;
  json doc;
  std::unique_ptr<valijson::Schema> schema;
  std::unique_ptr<SubSchemas> subs = std::make_unique<SubSchemas>();
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

// The node at a JSON pointer of c's document as a schema of its own: the document with its root
// "$ref" at the node (draft 7 ignores a $ref's siblings), so its definitions resolve as before.
const valijson::Schema& schema_at(const Compiled& c, const std::string& pointer) {
  if (pointer.empty()) return *c.schema;
  std::lock_guard<std::mutex> lock(c.subs->mutex);
  auto& [wrapper, schema] = c.subs->at[pointer];
  if (!schema) {
    wrapper = c.doc;
    wrapper["$ref"] = "#" + pointer;
    schema = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(wrapper);
    parser.populateSchema(adapter, *schema);
  }
  return *schema;
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
enum class Kind { value, missing, unknown };
struct Error {
  std::vector<std::string> path;
  Kind kind = Kind::value;
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
  if (d.rfind(missing, 0) == 0) {
    out.kind = Kind::missing;
    out.path.push_back(quoted_tail(d, missing));
  } else if (d.rfind(unknown, 0) == 0) {
    out.kind = Kind::unknown;
    out.path.push_back(quoted_tail(d, unknown));
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
    // Every step but a missing key's (the last) is in the document: its type says key or index.
    const bool index = at.value && at.value->is_array();
    if (index) at.field += "[" + key + "]";
    else at.field += (at.field.empty() ? "" : ".") + field_name(key);
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
    case Kind::value: return {at.field, expected_text(c.ordered, at.node), at.value ? brief(*at.value) : "nothing"};
  }
  return {};
}

// The descent to the failing field. valijson reports every error at once, and a file of
// millions of bad entries would make millions of records; instead each child is checked alone
// (valijson stops at its first failure), in the schema's order, and the first failing one is
// descended into, until a value whose children all pass (or that a combinator or no sub-schema
// covers): only there are the errors collected. A listed "const" field that differs (the
// format's name) stops the descent at its level, so a file of another format is named as such.
std::string pointer_key(const std::string& key) {
  std::string out;
  for (char ch : key) out += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
  return out;
}

std::string resolved_pointer(const ordered_json& root, std::string pointer) {
  for (int hops = 0; hops < 16; ++hops) {
    const ordered_json::json_pointer p(pointer);
    if (!root.contains(p)) return pointer;
    const ordered_json& n = root[p];
    if (!n.is_object() || !n.contains("$ref") || !n["$ref"].is_string()) return pointer;
    const std::string ref = n["$ref"];
    if (ref.rfind("#", 0) != 0) return pointer;
    pointer = ref.substr(1);
  }
  return pointer;
}

// The schema node of the value `key` (or index) under a value checked by the node at `pointer`.
std::optional<std::string> child_pointer(const ordered_json& root, const std::string& pointer, const std::string& key, bool index) {
  const std::string at = resolved_pointer(root, pointer);
  const ordered_json::json_pointer p(at);
  if (!root.contains(p)) return std::nullopt;
  const ordered_json& n = root[p];
  if (!n.is_object() || n.contains("anyOf") || n.contains("oneOf") || n.contains("allOf")) return std::nullopt;
  if (index) {
    if (!n.contains("items")) return std::nullopt;
    if (n["items"].is_object()) return at + "/items";
    if (n["items"].is_array() && std::stoul(key) < n["items"].size()) return at + "/items/" + key;
    return std::nullopt;
  }
  if (n.contains("properties") && n["properties"].contains(key)) return at + "/properties/" + pointer_key(key);
  if (n.contains("additionalProperties") && n["additionalProperties"].is_object()) return at + "/additionalProperties";
  return std::nullopt;
}

// A required field with a "const" (the format's name) that the value lacks or differs from: its key.
std::optional<std::string> names_another_format(const ordered_json& root, const std::string& pointer, const json& v) {
  const ordered_json* n = resolve(root, &root[ordered_json::json_pointer(resolved_pointer(root, pointer))]);
  if (!v.is_object() || !n || !n->contains("properties") || !n->contains("required")) return std::nullopt;
  for (const auto& [key, sub] : (*n)["properties"].items()) {
    const ordered_json* s = resolve(root, &sub);
    const auto& required = (*n)["required"];
    if (!s || !s->contains("const") || std::find(required.begin(), required.end(), key) == required.end()) continue;
    if (!v.contains(key) || v[key].dump() != (*s)["const"].dump()) return key;
  }
  return std::nullopt;
}

// Where the descent stopped, or (other_format) the const field that names another format.
struct Failing {
  const json* value;
  std::vector<std::string> path;
  std::string pointer;
  std::optional<Error> other_format;
};

// A value's children, the keys its schema node lists first (in the schema's order).
std::vector<std::pair<std::string, const json*>> children(const ordered_json& root, const std::string& pointer, const json& v) {
  std::vector<std::pair<std::string, const json*>> out;
  if (v.is_array()) {
    for (std::size_t k = 0; k < v.size(); ++k) out.emplace_back(std::to_string(k), &v[k]);
    return out;
  }
  const ordered_json* n = resolve(root, &root[ordered_json::json_pointer(resolved_pointer(root, pointer))]);
  std::set<std::string> listed;
  if (n && n->contains("properties"))
    for (const auto& [key, _] : (*n)["properties"].items())
      if (v.contains(key) && listed.insert(key).second) out.emplace_back(key, &v[key]);
  for (const auto& [key, x] : v.items())
    if (!listed.count(key)) out.emplace_back(key, &x);
  return out;
}

// Values in v, counted up to `limit`.
std::size_t count_values(const json& v, std::size_t limit) {
  std::size_t n = 1;
  if (v.is_structured())
    for (const json& x : v) {
      if (n > limit) break;
      n += count_values(x, limit - n);
    }
  return n;
}

// Every error valijson finds under the document checked whole (a small one, so the records are
// few), else the errors where the descent stops.
constexpr std::size_t whole_document_values = 20000;

Failing first_failing(const Compiled& c, const json& doc) {
  Failing f{&doc, {}, ""};
  valijson::Validator validator;
  for (bool deeper = true; deeper;) {
    deeper = false;
    if (!f.value->is_structured()) break;
    if (const auto key = names_another_format(c.ordered, f.pointer, *f.value)) {
      std::vector<std::string> path = f.path;
      path.push_back(*key);
      f.other_format = Error{path, f.value->contains(*key) ? Kind::value : Kind::missing};
      break;
    }
    for (const auto& [key, x] : children(c.ordered, f.pointer, *f.value)) {
      const std::optional<std::string> p = child_pointer(c.ordered, f.pointer, key, f.value->is_array());
      if (!p) continue;
      valijson::adapters::NlohmannJsonAdapter adapter(*x);
      if (validator.validate(schema_at(c, *p), adapter, nullptr)) continue;
      f.value = x;
      f.path.push_back(key);
      f.pointer = *p;
      deeper = true;
      break;
    }
  }
  return f;
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
  return max_json_depth;
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
  valijson::adapters::NlohmannJsonAdapter whole(target);
  if (validator.validate(*c.schema, whole, nullptr)) return {};
  const Failing failing = count_values(target, whole_document_values) <= whole_document_values
                              ? Failing{&target, {}, "", std::nullopt}
                              : first_failing(c, target);
  if (failing.other_format) {
    const Located at = locate(doc, c.ordered, failing.other_format->path);
    return {problem(at, c, *failing.other_format)};
  }
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(*failing.value);
  validator.validate(schema_at(c, failing.pointer), adapter, &results);
  std::vector<Error> errors;
  for (const auto& r : results) {
    Error e = parse_error(r);
    e.path.insert(e.path.begin(), failing.path.begin(), failing.path.end());
    errors.push_back(std::move(e));
  }
  if (errors.empty()) errors.push_back({failing.path, Kind::value});  // not reached: valijson names what failed
  // The deepest error of each path: a parent's "failed to validate property" repeats its child's.
  // Sorted by path, a path's children follow it (after its repeats).
  std::vector<std::size_t> by_path(errors.size());
  for (std::size_t i = 0; i < by_path.size(); ++i) by_path[i] = i;
  std::stable_sort(by_path.begin(), by_path.end(), [&](std::size_t a, std::size_t b) { return errors[a].path < errors[b].path; });
  std::vector<bool> has_child(errors.size(), false);
  for (std::size_t k = 0; k < by_path.size(); ++k) {
    std::size_t next = k + 1;
    while (next < by_path.size() && errors[by_path[next]].path == errors[by_path[k]].path) ++next;
    if (next == by_path.size()) continue;
    const auto& p = errors[by_path[k]].path;
    const auto& q = errors[by_path[next]].path;
    has_child[by_path[k]] = q.size() > p.size() && std::equal(p.begin(), p.end(), q.begin());
  }
  std::vector<std::pair<Located, SchemaProblem>> found;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    const Error& e = errors[i];
    if (has_child[i]) continue;
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

json read_json_file(const std::string& path, JsonFormat f) { return read_json_text(read_file(path), path, f); }

json read_json_text(const std::string& text, const std::string& where, JsonFormat f) {
  json j = parse_json(text, where, json_max_depth(f));
  check_json(j, f, where);
  return j;
}

ordered_json read_ordered_json_file(const std::string& path, JsonFormat f) {
  const std::string text = read_file(path);
  check_json(parse_json(text, path, json_max_depth(f)), f, path);  // depth and duplicate keys checked there first
  return ordered_json::parse(text);
}

}  // namespace rope2d::verify
