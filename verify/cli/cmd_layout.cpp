// rope2d layout [FILE] [--seed N --batch B --seq-len S]: describe a layout, or make one.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "rope2d/ref/layout.hpp"
#include "codec/layout_json.hpp"
#include "products/report/layout_svg.hpp"
#include "rope2d/verify/model/report.hpp"
#include "codec/validate.hpp"

namespace rope2d::cli {

namespace {

struct LayoutArgs {
  std::string file;
  std::uint64_t seed = 0;
  ref::LayoutSpec spec;
  bool print_positions = false;
  bool emit = false;
  std::string svg;  // draw the layout into this file
};

void write_svg(const std::string& path, const std::string& svg) {
  try {
    verify::write_file_atomic(path, {svg});
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--svg: ") + e.what());
  }
}

int run(const LayoutArgs& a) {
  if (!a.svg.empty()) verify::require_output_file(a.svg, "--svg");
  ref::Layout layout;
  if (!a.file.empty()) {
    layout = verify::read_layout_file(a.file);
  } else {
    layout = ref::random_layout(a.seed, a.spec);
  }
  if (!a.svg.empty()) write_svg(a.svg, verify::layout_svg(layout, a.file.empty() ? "seed " + std::to_string(a.seed) : a.file));
  if (a.emit) {
    std::cout << verify::layout_to_json(layout) << "\n";
    return Exit::ok;
  }
  const std::vector<float> theta = ref::theta_table(layout.rope);
  nlohmann::ordered_json j;
  j["source"] = a.file.empty() ? "seed " + std::to_string(a.seed) : a.file;
  j["batch"] = layout.batch.size();
  j["seq_len"] = layout.seq_len();
  j["head_dim"] = layout.rope.head_dim;
  j["base"] = layout.rope.base;
  j["ntk_factor"] = layout.rope.ntk_factor;
  j["theta_first_last"] = {theta.front(), theta.back()};
  nlohmann::ordered_json seqs = nlohmann::json::array();
  for (const auto& seq : layout.batch) {
    const auto pos = ref::positions(seq);
    const auto t = ref::angles(pos, theta, layout.rope.head_dim);
    std::int64_t text = 0, image = 0, marker = 0, images = 0;
    for (const auto& s : seq) {
      (s.kind == ref::Segment::Kind::text ? text : s.kind == ref::Segment::Kind::image ? image : marker) += s.tokens();
      images += s.kind == ref::Segment::Kind::image;
    }
    std::int64_t max_y = 0, max_x = 0;
    for (const auto& p : pos) max_y = std::max(max_y, p.y), max_x = std::max(max_x, p.x);
    const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
    nlohmann::ordered_json s;
    s["segments"] = seq.size();
    s["text_tokens"] = text;
    s["image_tokens"] = image;
    s["images"] = images;
    s["marker_tokens"] = marker;
    s["max_y"] = max_y;
    s["max_x"] = max_x;
    s["angle_min"] = *lo;
    s["angle_max"] = *hi;
    if (a.print_positions) {
      nlohmann::json p = nlohmann::json::array();
      for (const auto& q : pos) p.push_back({q.y, q.x});
      s["positions"] = p;
    }
    seqs.push_back(s);
  }
  j["sequences"] = seqs;
  std::cout << j.dump(2) << "\n";
  return Exit::ok;
}

}  // namespace

Action add_layout(CLI::App& app) {
  auto a = std::make_shared<LayoutArgs>();
  app.add_option("FILE", a->file, "layout JSON (schema rope2d.layout/1); without it, a random layout");
  app.add_option("--seed", a->seed, "seed of the random layout")->capture_default_str()->check(seed_range());
  app.add_option("--batch", a->spec.batch, "random layout: sequences")->capture_default_str()->check(CLI::Range(1, 4096));
  app.add_option("--seq-len", a->spec.seq_len, "random layout: tokens per sequence")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  app.add_option("--max-image-side", a->spec.max_image_side, "random layout: largest image side")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_flag("--vary-rope", a->spec.vary_rope, "random layout: draw base and NTK factor too");
  app.add_flag("--positions", a->print_positions, "print every (y, x) position");
  app.add_option("--svg", a->svg, "also draw the layout (text runs, image blocks, markers, position ranges) as SVG here");
  app.add_flag("--emit", a->emit, "print the layout itself as JSON instead of its description");
  return [a, &app] {
    // Options the chosen mode would ignore are refused, never dropped silently.
    if (!a->file.empty())
      for (const char* o : {"--seed", "--batch", "--seq-len", "--max-image-side", "--vary-rope"})
        if (app.get_option(o)->count() > 0)
          throw std::invalid_argument(std::string(o) + ": makes a random layout; not with a layout FILE");
    if (a->emit && a->print_positions) throw std::invalid_argument("--positions: not with --emit (which prints the layout itself)");
    return run(*a);
  };
}

}  // namespace rope2d::cli
