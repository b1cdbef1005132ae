// A layout's JSON (layout_json.hpp): written from a ref::Layout, read through its schema
// (verify/schema/layout.schema.json) and then the rules a schema cannot say.
#include "codec/layout_json.hpp"

#include <cstdint>
#include <stdexcept>

#include "codec/input.hpp"
#include "codec/json_schema.hpp"

namespace rope2d::verify {

using nlohmann::json;

namespace {

// One kind per segment: the schema allows only these keys, each typed; which go together is here.
ref::Segment segment(const json& j, const std::string& where, const std::string& field) {
  // A count or position as the number given: one beyond 64-bit signed integers (2^64 - 1 read
  // as -1) is refused as it was written.
  const auto int64_of = [&](const char* key) {
    const json& v = j[key];
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      bad_input(where, field + "." + key, "an integer below 2^63", brief(v));
    return v.get<std::int64_t>();
  };
  ref::Segment s;
  if (j.contains("text")) {
    if (j.size() != 1) bad_input(where, field, "a text segment of the key \"text\" alone", brief(j));
    s.count = int64_of("text");
  } else if (j.contains("image")) {
    if (j.size() != 1) bad_input(where, field, "an image segment of the key \"image\" alone", brief(j));
    s.kind = ref::Segment::Kind::image;
    s.h = j["image"][0].get<int>();
    s.w = j["image"][1].get<int>();
  } else if (j.contains("marker")) {
    if (!j.contains("pos") || j.size() != 2) bad_input(where, field, "a marker segment of the keys \"marker\" and \"pos\"", brief(j));
    s.kind = ref::Segment::Kind::marker;
    s.count = int64_of("marker");
    s.pos = int64_of("pos");
  } else {
    bad_input(where, field, "one of \"text\", \"image\", \"marker\"", brief(j));
  }
  return s;
}

ref::Layout layout_of(const json& j, const std::string& where) {
  ref::Layout layout;
  if (j.contains("rope")) {
    const json& r = j["rope"];
    if (r.contains("head_dim")) layout.rope.head_dim = r["head_dim"].get<int>();
    if (r.contains("base")) layout.rope.base = r["base"].get<double>();
    if (r.contains("ntk_factor")) layout.rope.ntk_factor = r["ntk_factor"].get<double>();
  }
  for (std::size_t b = 0; b < j["batch"].size(); ++b) {
    std::vector<ref::Segment> segs;
    for (std::size_t i = 0; i < j["batch"][b].size(); ++i)
      segs.push_back(segment(j["batch"][b][i], where, "batch[" + std::to_string(b) + "][" + std::to_string(i) + "]"));
    layout.batch.push_back(std::move(segs));
  }
  try {
    ref::validate(layout);
  } catch (const std::invalid_argument& e) {  // the layout's own rules (shapes, theta table): named by field there
    throw std::invalid_argument(where + ": " + e.what());
  }
  return layout;
}

}  // namespace

std::string layout_to_json(const ref::Layout& layout) {
  json batch = json::array();
  for (const auto& seq : layout.batch) {
    json segs = json::array();
    for (const ref::Segment& s : seq) {
      switch (s.kind) {
        case ref::Segment::Kind::text: segs.push_back({{"text", s.count}}); break;
        case ref::Segment::Kind::image: segs.push_back({{"image", {s.h, s.w}}}); break;
        case ref::Segment::Kind::marker: segs.push_back({{"marker", s.count}, {"pos", s.pos}}); break;
      }
    }
    batch.push_back(segs);
  }
  json j = {{"schema", layout_schema},
            {"rope", {{"head_dim", layout.rope.head_dim}, {"base", layout.rope.base}, {"ntk_factor", layout.rope.ntk_factor}}},
            {"batch", batch}};
  return j.dump(1);
}

ref::Layout layout_from_json(const std::string& text, const std::string& where) {
  const json j = parse_json(text, where, json_max_depth(JsonFormat::layout));
  check_json(j, JsonFormat::layout, where);
  return layout_of(j, where);
}

ref::Layout read_layout_file(const std::string& path) { return layout_of(read_json_file(path, JsonFormat::layout), path); }

}  // namespace rope2d::verify
