// The fuzz targets (targets.hpp), shared by the libFuzzer programs and the mutation test.
#include "targets.hpp"

#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <variant>

#include "harness/host_notes.hpp"
#include "harness/host_protocol.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codec/bench_torch.hpp"
#include "codec/worst_list.hpp"
#include "rope2d/ref/layout.hpp"
#include "rope2d/verify/judge/check.hpp"
#include "rope2d/verify/codec/golden.hpp"
#include "codec/json_schema.hpp"
#include "codec/layout_json.hpp"
#include "rope2d/ref/worst_list.hpp"
#include "products/nightly/nightly.hpp"
#include "codec/nightly_config.hpp"
#include "products/nightly/nightly_input.hpp"
#include "products/nightly/nightly_report.hpp"
#include "products/nightly/nightly_shard.hpp"
#include "products/sweep/sweep_worst.hpp"
#include "harness/solution.hpp"

namespace rope2d::fuzz {

namespace fs = std::filesystem;

namespace {

// Two small problems of the committed set, and a manifest listing just them.
constexpr const char* small_files[] = {"odd_bf16_n_7_1.safetensors", "odd_fp32_n_129_1.safetensors"};

void write(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

std::string make_scratch() {
  std::string dir = (fs::temp_directory_path() / "rope2d-fuzz-XXXXXX").string();
  if (!::mkdtemp(dir.data())) std::abort();
  const fs::path golden = fs::path(ROPE2D_SOURCE_DIR) / "data" / "golden-smoke";
  nlohmann::json m = verify::read_json_file((golden / "manifest.json").string(), verify::JsonFormat::golden_manifest);
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : m["files"])
    for (const char* name : small_files)
      if (f["file"] == name) files.push_back(f);
  m["files"] = files;
  // "set" for the manifest target to overwrite, "outset" for judging outputs against.
  for (const char* sub : {"set", "outset"}) {
    fs::create_directories(fs::path(dir) / sub);
    for (const char* name : small_files) fs::copy_file(golden / name, fs::path(dir) / sub / name);
    std::ofstream(fs::path(dir) / sub / "manifest.json") << m.dump(2) << "\n";
  }
  std::ofstream(fs::path(dir) / "manifest.seed.json") << m.dump(2) << "\n";
  // An outputs file that passes: the stored results under the problems' names.
  verify::SafeTensors out;
  const verify::GoldenSet set = verify::open_golden((fs::path(dir) / "outset").string());
  for (const auto& f : set.files) {
    const verify::GoldenProblem g = verify::load_golden(set, f);
    out.tensors[f.problem] = verify::make_tensor("F32", g.problem.spec.shape(), g.expected.fp32);
  }
  verify::write_safetensors((fs::path(dir) / "outputs.seed.safetensors").string(), out);
  return dir;
}

}  // namespace

const std::string& scratch() {
  static const std::string dir = make_scratch();
  // Registered after dir is built, so it runs before dir is destroyed.
  static const bool cleaned_at_exit = std::atexit([] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }) == 0;
  (void)cleaned_at_exit;
  return dir;
}

void safetensors(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch() + "/problem.safetensors";
  write(path, data, size);
  try {
    verify::read_safetensors(path);
    verify::load_golden(verify::GoldenSet{scratch(), "", {}}, verify::GoldenFile{"problem.safetensors", "p", "", 7});
  } catch (const std::exception&) {
  }
}

void manifest(const std::uint8_t* data, std::size_t size) {
  const std::string dir = scratch() + "/set";
  write(dir + "/manifest.json", data, size);
  try {
    const verify::GoldenSet set = verify::open_golden(dir);
    for (const auto& f : set.files) verify::load_golden(set, f);
  } catch (const std::exception&) {
  }
}

void layout(const std::uint8_t* data, std::size_t size) {
  try {
    const ref::Layout l = verify::layout_from_json(std::string(reinterpret_cast<const char*>(data), size));
    if (static_cast<std::int64_t>(l.batch.size()) * l.seq_len() * l.rope.head_dim <= (1 << 20)) ref::angles(l);
  } catch (const std::exception&) {
  }
}

void solution(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch() + "/solution.json";
  write(path, data, size);
  std::error_code ec;
  fs::remove_all(scratch() + "/solution", ec);
  try {
    verify::prepare_solution(path, scratch() + "/solution");
  } catch (const std::exception&) {
  }
}

void nightly_config(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch() + "/nightly.json";
  write(path, data, size);
  try {
    verify::read_nightly_config(path);
  } catch (const std::exception&) {
  }
}

void outputs(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch() + "/outputs.safetensors";
  write(path, data, size);
  try {
    static const verify::GoldenSet set = verify::open_golden(scratch() + "/outset");
    verify::check_outputs(set, verify::read_safetensors(path), verify::Tier::float32_bound);
  } catch (const std::exception&) {
  }
}

namespace {

// A refusal that does not say which file it is about fails the contract (exit 2 naming the
// file): reported and aborted, so the mutation test keeps the mutant.
void refusal_names(const std::exception& e, const std::string& path) {
  if (std::string(e.what()).find(path) != std::string::npos) return;
  std::fprintf(stderr, "\nrefusal names no file (expected %s): %.300s\n", path.c_str(), e.what());
  std::abort();
}

// The fuzz seeds' night, as the corpus's shard result says.
constexpr const char* night = "2026-12-04";

}  // namespace

void shard_result(const std::uint8_t* data, std::size_t size) {
  const std::string root = scratch() + "/nightly", path = root + "/" + night + "/shard-0-of-1.json";
  fs::create_directories(root + "/" + night);
  write(path, data, size);
  try {
    const std::vector<std::pair<std::string, nlohmann::json>> shards{{path, verify::read_shard_result(path)}};
    const verify::NightSummary merged = verify::merge_nightly_shards(shards);
    // Where the report would go: a folder directly under --out, never beside or above it.
    const std::string date = merged.date;
    const fs::path dir = (fs::path(root) / date).lexically_normal();
    if (!verify::valid_run_date(date) || dir.parent_path() != fs::path(root).lexically_normal()) {
      std::fprintf(stderr, "\nshard accepted with a date outside --out: %.100s\n", date.c_str());
      std::abort();
    }
    verify::nightly_regressions(merged, merged);
    verify::nightly_markdown(merged, root + "/" + night);  // the shard's names as text
    verify::nightly_junit(merged);
    verify::merge_sweep_worst_lists(shards, 16);
  } catch (const std::exception& e) {
    refusal_names(e, root + "/" + night + "/");  // the shard or a worst-case list beside it
  }
}

void previous_summary(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch() + "/nightly/2026-12-03/summary.json";
  fs::create_directories(scratch() + "/nightly/2026-12-03");
  write(path, data, size);
  try {
    const verify::NightSummary previous = verify::read_previous_summary(path);
    // Tonight as the corpus's summary (the same shape): every rule reads both.
    static const verify::NightSummary now =
        verify::read_previous_summary(ROPE2D_SOURCE_DIR "/verify/fuzz/corpus/summary/summary.json");
    verify::nightly_regressions(now, previous);
    verify::nightly_regressions(previous, previous);
  } catch (const std::exception& e) {
    refusal_names(e, path);
  }
}

void worst_list(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch() + "/sweep_worst.txt";
  write(path, data, size);
  try {
    ref::worst_elements(verify::read_worst_list(path, 3));
  } catch (const std::exception& e) {
    refusal_names(e, path);
  }
  try {
    // The corpus's sweep list is of bit patterns [0x40000000, 0x44000000) (angles [2, 512), one
    // chunk of a quick sweep: rope2d sweep --quick --range 0x40000000:0x44000000).
    verify::read_sweep_worst(path, 0x40000000, 0x44000000, verify::default_sweep_grads(), 16);
  } catch (const std::exception& e) {
    refusal_names(e, path);
  }
}

void host_records(const std::uint8_t* data, std::size_t size) {
  namespace wire = verify::harness::wire;
  const std::span<const std::uint8_t> bytes(data, size);
  if (const auto q = wire::parse_request(bytes)) {
    if (std::memcmp(&*q, data, sizeof *q) != 0) throw std::logic_error("an accepted request reads back otherwise");
    if (q->op == wire::Op::call) {
      if (q->seq == 0 || q->slot >= wire::max_slots || q->count < 0) throw std::logic_error("a call out of range was accepted");
      for (const wire::Ref& a : q->arg)
        if (a.region >= wire::max_regions || a.pad != 0) throw std::logic_error("a pointer out of range was accepted");
      std::int64_t product = 1;
      for (std::uint32_t i = 0; i < q->rank; ++i) product *= q->shape[i];
      if (q->rank > wire::max_rank || (q->rank > 0 && product != q->count)) throw std::logic_error("a shape out of range was accepted");
    }
  }
  if (const auto n = wire::parse_note(bytes)) {
    if (n->text.size() > wire::max_note_bytes || n->text.size() + sizeof(wire::Reply) != size ||
        std::memcmp(n->text.data(), data + sizeof(wire::Reply), n->text.size()) != 0)
      throw std::logic_error("an accepted note reads back otherwise");
    if (wire::parse_reply(bytes)) throw std::logic_error("a record read both as a note and as a reply");
    host_notes(reinterpret_cast<const std::uint8_t*>(n->text.data()), n->text.size());
  }
  if (const auto r = wire::parse_reply(bytes)) {
    if (std::memcmp(&*r, data, sizeof *r) != 0) throw std::logic_error("an accepted reply reads back otherwise");
    if (r->seq == 0) throw std::logic_error("a reply of call 0 was accepted");
  }
}

namespace {

// What a note read as `e` about call `seq` (0: the host) may hold: a kind of its side, times
// finite and >= 0, causes of its kind; a BadNote says why in few words.
void check_note(std::uint64_t seq, const verify::harness::wire::HostEvent& e) {
  namespace wire = verify::harness::wire;
  using verify::Cause;
  const bool host_kind = std::holds_alternative<wire::Loaded>(e) || std::holds_alternative<wire::LoadFailed>(e) ||
                         std::holds_alternative<wire::Built>(e);
  const bool call_kind = std::holds_alternative<wire::CallFailed>(e) || std::holds_alternative<wire::CallEnded>(e);
  if ((host_kind && seq != 0) || (call_kind && seq == 0)) throw std::logic_error("a note read as a kind of the other side");
  if (const auto* l = std::get_if<wire::Loaded>(&e); l && !(std::isfinite(l->import_s) && l->import_s >= 0))
    throw std::logic_error("a load note with a time out of range was accepted");
  if (const auto* d = std::get_if<wire::CallEnded>(&e); d && !(std::isfinite(d->wall_s) && d->wall_s >= 0))
    throw std::logic_error("a call's end with a time out of range was accepted");
  if (const auto* f = std::get_if<wire::LoadFailed>(&e); f && f->cause != Cause::build && f->cause != Cause::runtime)
    throw std::logic_error("a load error of another cause was accepted");
  if (const auto* f = std::get_if<wire::CallFailed>(&e);
      f && f->cause != Cause::runtime && f->cause != Cause::shape && f->cause != Cause::dtype)
    throw std::logic_error("a call's error of another cause was accepted");
  if (const auto* b = std::get_if<wire::BadNote>(&e); b && (b->why.empty() || b->why.size() > 400))
    throw std::logic_error("a refused note without a short reason");
}

}  // namespace

void host_notes(const std::uint8_t* data, std::size_t size) {
  namespace wire = verify::harness::wire;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (std::uint64_t seq : {0ull, 7ull}) {
    const wire::HostNote n = wire::parse_host_note({seq, text});
    if (n.seq != seq) throw std::logic_error("a note read as about another call");
    check_note(seq, n.event);
  }
}

void bench_torch(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size), where = "torch peers' output";
  for (const bool paired : {false, true}) {
    try {
      const nlohmann::json j = verify::read_bench_torch(text, where, {"2x773", "1x4096"}, paired);
      if (!j.is_object() || j.at("workloads").size() != 2) throw std::logic_error("peers' output of other rows was accepted");
    } catch (const std::invalid_argument& e) {
      refusal_names(e, where);
    }
  }
}

const std::vector<Target>& targets() {
  static const std::vector<Target> t{{"safetensors", safetensors}, {"manifest", manifest}, {"layout", layout},
                                     {"solution", solution},       {"nightly_config", nightly_config}, {"outputs", outputs},
                                     {"shard_result", shard_result}, {"previous_summary", previous_summary},
                                     {"worst_list", worst_list}, {"host_records", host_records}, {"host_notes", host_notes},
                                     {"bench_torch", bench_torch}};
  return t;
}

}  // namespace rope2d::fuzz
