// The Python host's notes read into typed events (host_notes.hpp).
#include "harness/host_notes.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "codec/plain_text.hpp"

namespace rope2d::verify::harness::wire {

namespace {

using nlohmann::json;

// The types of field the host writes: a text, a time in seconds, a list of texts.
enum class Type { text, time, texts };

struct Field {
  const char* key;
  Type type;
  bool optional = false;
};

const char* expected(Type t) {
  switch (t) {
    case Type::text: return "a string";
    case Type::time: return "a finite number >= 0";
    case Type::texts: return "a list of strings";
  }
  return "";
}

bool fits(const json& v, Type t) {
  switch (t) {
    case Type::text: return v.is_string();
    case Type::time: return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0;
    case Type::texts: return v.is_array() && std::ranges::all_of(v, [](const json& e) { return e.is_string(); });
  }
  return false;
}

// A name the note gave, safe to show and short (the note is the submission's to write).
std::string quoted(const std::string& key) { return "\"" + plain_line(key.substr(0, 40)) + (key.size() > 40 ? "...\"" : "\""); }

// Why the object m is not exactly these fields of these types ("" when it is).
std::string misfit(const json& m, std::initializer_list<Field> fields) {
  for (auto it = m.begin(); it != m.end(); ++it) {
    const auto f = std::ranges::find_if(fields, [&](const Field& f) { return it.key() == f.key; });
    if (f == fields.end()) return "an unknown field " + quoted(it.key());
    if (!fits(*it, f->type)) return "field " + quoted(it.key()) + " is not " + expected(f->type);
  }
  for (const Field& f : fields)
    if (!f.optional && !m.contains(f.key)) return "no field " + quoted(f.key);
  return "";
}

// A "kind" word as the cause it names, among those this kind of note may give.
std::optional<Cause> cause_of(const json& kind, std::initializer_list<std::pair<const char*, Cause>> allowed) {
  for (const auto& [word, cause] : allowed)
    if (kind == word) return cause;
  return std::nullopt;
}

std::string text(const json& m, const char* key) { return m.contains(key) ? m[key].get<std::string>() : std::string(); }

// {"note", "kind"}: the kind of the note that was cut, any the host gives.
HostEvent cut(const json& m) {
  if (std::string why = misfit(m, {{"note", Type::text}, {"kind", Type::text}}); !why.empty()) return BadNote{why};
  const std::optional<Cause> cause = cause_of(m["kind"], {{"runtime", Cause::runtime}, {"shape", Cause::shape},
                                                          {"dtype", Cause::dtype}, {"build", Cause::build}, {"load", Cause::runtime}});
  if (!cause) return BadNote{"a cut note of an unknown kind"};
  return NoteCut{*cause, m["kind"] == "build" || m["kind"] == "load"};
}

HostEvent about_host(const json& m) {
  if (!m.contains("type")) return m.contains("note") ? cut(m) : BadNote{"no field \"type\""};
  const json& type = m["type"];
  if (type == "load") {
    std::string why = misfit(m, {{"type", Type::text}, {"import_s", Type::time}, {"patched", Type::texts},
                                 {"state", Type::texts}, {"threads", Type::texts}});
    if (!why.empty()) return BadNote{"load: " + why};
    return Loaded{m["import_s"].get<double>(), m["patched"].get<std::vector<std::string>>(),
                  m["state"].get<std::vector<std::string>>(), m["threads"].get<std::vector<std::string>>()};
  }
  if (type == "load_error") {
    std::string why = misfit(m, {{"type", Type::text}, {"kind", Type::text}, {"message", Type::text}, {"trace", Type::text, true}});
    if (!why.empty()) return BadNote{"load_error: " + why};
    const std::optional<Cause> cause = cause_of(m["kind"], {{"build", Cause::build}, {"load", Cause::runtime}});
    if (!cause) return BadNote{"load_error: a kind other than \"build\" or \"load\""};
    return LoadFailed{text(m, "message"), text(m, "trace"), *cause};
  }
  if (type == "build") {
    if (std::string why = misfit(m, {{"type", Type::text}, {"how", Type::text}}); !why.empty()) return BadNote{"build: " + why};
    return Built{text(m, "how")};
  }
  return BadNote{"a note of an unknown type"};
}

HostEvent about_call(const json& m) {
  if (m.contains("error")) {
    if (std::string why = misfit(m, {{"error", Type::text}, {"kind", Type::text}}); !why.empty()) return BadNote{"error: " + why};
    const std::optional<Cause> cause = cause_of(m["kind"], {{"runtime", Cause::runtime}, {"shape", Cause::shape}, {"dtype", Cause::dtype}});
    if (!cause) return BadNote{"error: a kind other than \"runtime\", \"shape\" or \"dtype\""};
    return CallFailed{text(m, "error"), *cause};
  }
  if (m.contains("wall_s")) {
    if (std::string why = misfit(m, {{"wall_s", Type::time}, {"findings", Type::texts}}); !why.empty()) return BadNote{"end: " + why};
    return CallEnded{m["wall_s"].get<double>(), m["findings"].get<std::vector<std::string>>()};
  }
  if (m.contains("note")) return cut(m);
  return BadNote{"neither an error (\"error\"), an end (\"wall_s\") nor a cut note (\"note\")"};
}

}  // namespace

HostNote parse_host_note(const Note& n) {
  const std::string about = n.seq ? "call " + std::to_string(n.seq) : "the host";
  const auto bad = [&](const std::string& why) { return HostNote{n.seq, BadNote{"the note about " + about + " is not the protocol: " + why}}; };
  if (n.text.size() > max_note_bytes) return bad("longer than " + std::to_string(max_note_bytes) + " bytes");
  const json m = json::parse(n.text, nullptr, false);
  if (m.is_discarded()) return bad("not JSON");
  if (!m.is_object()) return bad("not a JSON object");
  HostEvent e = n.seq ? about_call(m) : about_host(m);
  if (const auto* b = std::get_if<BadNote>(&e)) return bad(b->why);
  return {n.seq, std::move(e)};
}

bool UnreadNotes::take(const HostNote& n) {
  const auto* bad = std::get_if<BadNote>(&n.event);
  if (!bad) return false;
  if (count_++ == 0) first_ = bad->why;
  return true;
}

std::string UnreadNotes::line() const {
  std::string s;
  if (count_ > 0)
    s = std::to_string(count_) + " note(s) from the solution's host were of no kind it sends and changed nothing; the first: " + first_;
  if (dropped_ > 0)
    s += (s.empty() ? "" : "; ") + std::to_string(dropped_) + " note(s) from the solution's host were dropped unread (over 256 between two calls)";
  return s;
}

}  // namespace rope2d::verify::harness::wire
