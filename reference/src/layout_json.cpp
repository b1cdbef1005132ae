// JSON form of layouts (schema rope2d.layout/1), with errors that name the offending field.
//
//   {"schema": "rope2d.layout/1",
//    "rope": {"head_dim": 128, "base": 10000, "ntk_factor": 1},
//    "batch": [[{"text": 12}, {"image": [32, 48]}, {"marker": 1, "pos": 43}, ...], ...]}
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rope2d/ref/input.hpp"
#include "rope2d/ref/layout.hpp"

namespace rope2d::ref {

using nlohmann::json;

namespace {

constexpr const char* schema = "rope2d.layout/1";

[[noreturn]] void fail(const std::string& field, const std::string& what) {
  throw std::invalid_argument("layout: " + field + ": " + what);
}

std::int64_t integer(const json& j, const std::string& field) {
  if (!j.is_number_integer()) fail(field, "expected an integer, found " + brief(j));
  return j.get<std::int64_t>();
}

double number(const json& j, const std::string& field) {
  if (!j.is_number()) fail(field, "expected a number, found " + brief(j));
  return j.get<double>();
}

Segment segment(const json& j, const std::string& where) {
  if (!j.is_object() || j.size() == 0) fail(where, "expected an object like {\"text\": N}, found " + brief(j));
  Segment s;
  if (j.contains("text")) {
    if (j.size() != 1) fail(where, "a text segment has only the key \"text\"");
    s.count = integer(j["text"], where + ".text");
  } else if (j.contains("image")) {
    const json& hw = j["image"];
    if (j.size() != 1) fail(where, "an image segment has only the key \"image\"");
    if (!hw.is_array() || hw.size() != 2) fail(where + ".image", "expected [h, w], found " + brief(hw));
    s.kind = Segment::Kind::image;
    const std::int64_t h = integer(hw[0], where + ".image[0]"), w = integer(hw[1], where + ".image[1]");
    if (h <= 0 || w <= 0 || h > 65536 || w > 65536)
      fail(where + ".image", "expected sides in [1, 65536], found " + brief(hw));
    s.h = static_cast<int>(h);
    s.w = static_cast<int>(w);
  } else if (j.contains("marker")) {
    if (!j.contains("pos") || j.size() != 2) fail(where, "a marker segment has the keys \"marker\" and \"pos\"");
    s.kind = Segment::Kind::marker;
    s.count = integer(j["marker"], where + ".marker");
    s.pos = integer(j["pos"], where + ".pos");
  } else {
    fail(where, "expected one of \"text\", \"image\", \"marker\", found " + brief(j.begin().key()));
  }
  return s;
}

}  // namespace

std::string to_json(const Layout& layout) {
  json batch = json::array();
  for (const auto& seq : layout.batch) {
    json segs = json::array();
    for (const Segment& s : seq) {
      switch (s.kind) {
        case Segment::Kind::text: segs.push_back({{"text", s.count}}); break;
        case Segment::Kind::image: segs.push_back({{"image", {s.h, s.w}}}); break;
        case Segment::Kind::marker: segs.push_back({{"marker", s.count}, {"pos", s.pos}}); break;
      }
    }
    batch.push_back(segs);
  }
  json j = {{"schema", schema},
            {"rope", {{"head_dim", layout.rope.head_dim}, {"base", layout.rope.base}, {"ntk_factor", layout.rope.ntk_factor}}},
            {"batch", batch}};
  return j.dump(1);
}

Layout layout_from_json(const std::string& text) {
  // Depth 4 is the deepest a layout needs (top, batch, sequence, segment, image sides).
  const json j = parse_json(text, "layout", 6);
  if (!j.is_object()) fail("(top)", "expected an object");
  if (!j.contains("schema") || j["schema"] != schema)
    fail("schema", std::string("expected \"") + schema + "\", found " + (j.contains("schema") ? brief(j["schema"]) : "nothing"));
  Layout layout;
  if (j.contains("rope")) {
    const json& r = j["rope"];
    if (!r.is_object()) fail("rope", "expected an object");
    if (r.contains("head_dim")) {
      const std::int64_t hd = integer(r["head_dim"], "rope.head_dim");
      if (hd <= 0 || hd > 65536 || hd % 4 != 0) fail("rope.head_dim", "expected a positive multiple of 4, found " + std::to_string(hd));
      layout.rope.head_dim = static_cast<int>(hd);
    }
    if (r.contains("base")) layout.rope.base = number(r["base"], "rope.base");
    if (r.contains("ntk_factor")) layout.rope.ntk_factor = number(r["ntk_factor"], "rope.ntk_factor");
  }
  if (!j.contains("batch") || !j["batch"].is_array()) fail("batch", "expected an array of sequences");
  for (std::size_t b = 0; b < j["batch"].size(); ++b) {
    const json& seq = j["batch"][b];
    const std::string where = "batch[" + std::to_string(b) + "]";
    if (!seq.is_array()) fail(where, "expected an array of segments, found " + brief(seq));
    std::vector<Segment> segs;
    for (std::size_t i = 0; i < seq.size(); ++i) segs.push_back(segment(seq[i], where + "[" + std::to_string(i) + "]"));
    layout.batch.push_back(std::move(segs));
  }
  validate(layout);
  return layout;
}

}  // namespace rope2d::ref
