// The fuzz targets (targets.hpp), shared by the libFuzzer programs and the mutation test.
#include "targets.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rope2d/ref/input.hpp"
#include "rope2d/ref/layout.hpp"
#include "rope2d/verify/check.hpp"
#include "rope2d/verify/golden.hpp"
#include "rope2d/verify/nightly_config.hpp"
#include "rope2d/verify/solution.hpp"

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
  nlohmann::json m = ref::read_json_file((golden / "manifest.json").string());
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
    const ref::Layout l = ref::layout_from_json(std::string(reinterpret_cast<const char*>(data), size));
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

const std::vector<Target>& targets() {
  static const std::vector<Target> t{{"safetensors", safetensors}, {"manifest", manifest}, {"layout", layout},
                                     {"solution", solution},       {"nightly_config", nightly_config}, {"outputs", outputs}};
  return t;
}

}  // namespace rope2d::fuzz
