// Serialising and parsing the verify worker's messages (worker_protocol.hpp).
#include "codec/worker_protocol.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "codec/names.hpp"
#include "rope2d/verify/model/report.hpp"

namespace rope2d::verify::protocol {

using nlohmann::json;

namespace {

json to_json(const Message& m) {
  return std::visit(overloaded{
                        [](const Device& d) { return json{{"type", "device"}, {"name", d.name}}; },
                        [](const NoGpu& d) { return json{{"type", "nogpu"}, {"reason", d.reason}}; },
                        [](const Start& d) {
                          return json{{"type", "start"}, {"name", d.name}, {"index", d.index}, {"count", d.count}};
                        },
                        [](const Call& d) { return json{{"type", "call"}, {"name", d.name}}; },
                        [](const Called&) { return json{{"type", "called"}}; },
                        [](const End& d) {
                          return json{{"type", "end"},       {"name", d.name},
                                      {"set", d.set},        {"dtype", dtype_name(d.dtype)},
                                      {"disposition", name(d.disposition)}, {"summary", d.summary},
                                      {"cause", name(d.cause)}, {"shape", d.shape}};
                        },
                        [](const Done& d) { return json{{"type", "done"}, {"verdict", name(d.verdict)}}; },
                        [](const Error& d) { return json{{"type", "error"}, {"message", d.message}}; },
                    },
                    m);
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::size_t count(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<std::size_t>() : 0;
}

}  // namespace

std::string serialise(const Message& m) { return to_json(m).dump() + "\n"; }

std::optional<Message> parse(std::string_view line) {
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const std::string type = text(j, "type");
  if (type == "device") return Device{text(j, "name")};
  if (type == "nogpu") return NoGpu{text(j, "reason")};
  if (type == "start") return Start{text(j, "name"), count(j, "index"), count(j, "count")};
  if (type == "call") return Call{text(j, "name")};
  if (type == "called") return Called{};
  try {
    if (type == "end") {
      const std::string dtype = text(j, "dtype");
      End e{text(j, "name"), text(j, "set"), ref::parse_dtype(dtype), parse_disposition(text(j, "disposition"), "disposition"),
            text(j, "summary")};
      if (!e.dtype && !dtype.empty()) return std::nullopt;  // a dtype that names none
      e.cause = parse_cause(text(j, "cause"), "cause");
      if (disposition(e.cause) != e.disposition) return std::nullopt;  // a cause that contradicts its disposition
      if (const auto it = j.find("shape"); it != j.end() && it->is_array() && it->size() <= 3)
        for (const json& v : *it)
          if (v.is_number_integer() && v.get<std::int64_t>() >= 0) e.shape.push_back(v.get<std::int64_t>());
      return e;
    }
    if (type == "done") return Done{parse_disposition(text(j, "verdict"), "verdict")};
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  if (type == "error") return Error{text(j, "message")};
  return std::nullopt;
}

void send(int fd, const Message& m) {
  const std::string s = serialise(m);
  for (std::size_t off = 0; off < s.size();) {
    const ssize_t k = write(fd, s.data() + off, s.size() - off);
    if (k <= 0) return;
    off += static_cast<std::size_t>(k);
  }
}

}  // namespace rope2d::verify::protocol
