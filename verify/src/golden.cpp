// Writing and reading golden sets.
#include "rope2d/verify/golden.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "rope2d/verify/safetensors.hpp"

#ifndef ROPE2D_VERSION
#define ROPE2D_VERSION "unknown"
#endif

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::string file_name(const ProblemSpec& s) {
  std::string n = s.name();
  for (char& c : n)
    if (c == '/' || c == '=' || c == '+') c = '_';
  return n + ".safetensors";
}

const char* source_name(AngleSource s) {
  return s == AngleSource::randn ? "randn" : s == AngleSource::layout ? "layout" : s == AngleSource::special ? "special" : "regime";
}

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw std::invalid_argument(where + ": " + what); }

}  // namespace

std::string generator_version() { return ROPE2D_VERSION; }

void write_golden(const std::string& dir, const std::vector<ProblemSpec>& specs, const std::string& command_line,
                  const std::function<void(std::size_t, std::size_t, const std::string&)>& progress) {
  fs::create_directories(dir);
  ordered_json files = ordered_json::array();
  ordered_json workloads = ordered_json::array();
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ProblemSpec& s = specs[k];
    if (progress) progress(k, specs.size(), s.name());
    const Problem p = make_problem(s);
    const Expected x = compute_expected(p, true);
    const std::vector<std::int64_t> shape = s.shape();
    SafeTensors st;
    st.tensors["grad_cos"] = Tensor{safetensors_dtype(s.grad_dtype), shape, p.gc};
    st.tensors["grad_sin"] = Tensor{safetensors_dtype(s.grad_dtype), shape, p.gs};
    st.tensors["idx_theta"] = make_tensor("F32", shape, p.theta);
    st.tensors["grad_idx_theta"] = make_tensor("F32", shape, x.fp32);
    st.tensors["grad_idx_theta_bf16"] = make_tensor("BF16", shape, x.bf16);
    st.tensors["grad_idx_theta_fp16"] = make_tensor("F16", shape, x.fp16);
    st.tensors["scale"] = make_tensor("F64", shape, x.scale);
    if (!p.positions.empty()) {
      st.tensors["positions"] = make_tensor("I32", {s.batch, s.seq_len, 2}, p.positions);
      st.tensors["theta"] = make_tensor("F32", {static_cast<std::int64_t>(p.theta_table.size())}, p.theta_table);
    }
    st.metadata = {{"schema", golden_schema},
                   {"problem", s.name()},
                   {"set", s.set},
                   {"source", source_name(s.source)},
                   {"regime", std::string(ref::name(s.regime))},
                   {"grad_dtype", std::string(ref::name(s.grad_dtype))},
                   {"batch", std::to_string(s.batch)},
                   {"seq_len", std::to_string(s.seq_len)},
                   {"head_dim", std::to_string(s.head_dim)},
                   {"elements", std::to_string(s.elements)},
                   {"misalign", s.offsets_text()},
                   {"seed", std::to_string(s.seed)}};
    const std::string name = file_name(s);
    write_safetensors((fs::path(dir) / name).string(), st);
    files.push_back({{"file", name},
                     {"problem", s.name()},
                     {"elements", p.n()},
                     {"sha256", sha256_file((fs::path(dir) / name).string())}});
    if (s.elements < 0 && s.grad_dtype == ref::Dtype::bf16 && s.head_dim == 128)
      workloads.push_back({{"uuid", s.name()},
                           {"axes", {{"batch_size", s.batch}, {"seq_len", s.seq_len}}},
                           {"inputs",
                            {{"grad_cos", {{"type", "safetensors"}, {"path", "../" + name}, {"tensor_key", "grad_cos"}}},
                             {"grad_sin", {{"type", "safetensors"}, {"path", "../" + name}, {"tensor_key", "grad_sin"}}},
                             {"idx_theta", {{"type", "safetensors"}, {"path", "../" + name}, {"tensor_key", "idx_theta"}}}}},
                           {"tolerance", {{"max_atol", 1e-5}, {"max_rtol", 1e-5}}}});
  }
  // A SOL-ExecBench problem directory whose workloads read these files.
  const fs::path sol = fs::path(dir) / "solexecbench";
  fs::create_directories(sol);
  ordered_json def = {
      {"name", "090_batched_2d_rope_position_encoding_backward"},
      {"axes", {{"batch_size", {{"type", "var"}}}, {"seq_len", {{"type", "var"}}}, {"head_dim", {{"type", "const"}, {"value", 128}}}}},
      {"inputs",
       {{"grad_cos", {{"shape", {"batch_size", "seq_len", "head_dim"}}, {"dtype", "bfloat16"}}},
        {"grad_sin", {{"shape", {"batch_size", "seq_len", "head_dim"}}, {"dtype", "bfloat16"}}},
        {"idx_theta", {{"shape", {"batch_size", "seq_len", "head_dim"}}, {"dtype", "float32"}}}}},
      {"outputs", {{"grad_idx_theta", {{"shape", {"batch_size", "seq_len", "head_dim"}}, {"dtype", "float32"}}}}},
      {"reference",
       "import torch\n\ndef run(grad_cos, grad_sin, idx_theta):\n    return -grad_cos.float() * torch.sin(idx_theta) + "
       "grad_sin.float() * torch.cos(idx_theta)\n"}};
  std::ofstream(sol / "definition.json") << def.dump(2) << "\n";
  {
    std::ofstream w(sol / "workload.jsonl");
    for (const auto& j : workloads) w << j.dump() << "\n";
  }
  ordered_json manifest = {
      {"schema", golden_schema},
      {"generator", "rope2d " + generator_version()},
      {"command", command_line},
      {"seeds", [&] {
         ordered_json s = ordered_json::array();
         for (const auto& p : specs) s.push_back(p.seed);
         return s;
       }()},
      {"reference",
       "correctly rounded -gc*sin(t) + gs*cos(t) per output dtype: double enclosure certified to 2^-48 of the scale, "
       "undecided elements by MPFR with Ziv's strategy from 128 bits; scale = |gc sin t| + |gs cos t| in double"},
      {"files", files}};
  const std::string tmp = (fs::path(dir) / "manifest.json.tmp").string();
  std::ofstream(tmp) << manifest.dump(2) << "\n";
  fs::rename(tmp, fs::path(dir) / "manifest.json");
}

GoldenSet open_golden(const std::string& dir) {
  const std::string mpath = (fs::path(dir) / "manifest.json").string();
  std::ifstream in(mpath);
  if (!in) bad(mpath, "cannot open (is " + dir + " a golden set?)");
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    bad(mpath, std::string("not valid JSON: ") + e.what());
  }
  if (!m.is_object() || m.value("schema", "") != golden_schema)
    bad(mpath, std::string("schema: expected \"") + golden_schema + "\", found " +
                   (m.is_object() && m.contains("schema") ? m["schema"].dump() : "nothing"));
  if (!m.contains("files") || !m["files"].is_array()) bad(mpath, "files: expected an array");
  GoldenSet set{dir, m.value("command", ""), {}};
  for (std::size_t i = 0; i < m["files"].size(); ++i) {
    const auto& f = m["files"][i];
    const std::string where = mpath + ": files[" + std::to_string(i) + "]";
    for (const char* key : {"file", "problem", "sha256"})
      if (!f.contains(key) || !f[key].is_string()) bad(where, std::string(key) + ": expected a string");
    GoldenFile g{f["file"], f["problem"], f["sha256"], f.value("elements", std::int64_t{0})};
    if (g.file.find('/') != std::string::npos || g.file.find("..") != std::string::npos)
      bad(where, "file: expected a plain file name, found " + g.file);
    const std::string path = (fs::path(dir) / g.file).string();
    const std::string sum = sha256_file(path);
    if (sum != g.sha256) bad(path, "sha256 " + sum + " differs from the manifest's " + g.sha256);
    set.files.push_back(std::move(g));
  }
  return set;
}

GoldenProblem load_golden(const GoldenSet& set, const GoldenFile& f) {
  const std::string path = (fs::path(set.dir) / f.file).string();
  SafeTensors st = read_safetensors(path);
  auto need = [&](const char* name) -> Tensor& {
    auto it = st.tensors.find(name);
    if (it == st.tensors.end()) bad(path, std::string("missing tensor ") + name);
    return it->second;
  };
  auto meta = [&](const char* key) {
    auto it = st.metadata.find(key);
    if (it == st.metadata.end()) bad(path, std::string("__metadata__ lacks ") + key);
    return it->second;
  };
  GoldenProblem g;
  ProblemSpec& s = g.problem.spec;
  s.set = meta("set");
  const auto d = ref::parse_dtype(meta("grad_dtype"));
  if (!d) bad(path, "__metadata__.grad_dtype: unknown " + meta("grad_dtype"));
  s.grad_dtype = *d;
  s.batch = std::stoll(meta("batch"));
  s.seq_len = std::stoll(meta("seq_len"));
  s.head_dim = std::stoll(meta("head_dim"));
  s.elements = std::stoll(meta("elements"));
  s.offset = ProblemSpec::parse_offsets(meta("misalign"));
  s.seed = std::stoull(meta("seed"));
  const std::string src = meta("source");
  s.source = src == "layout" ? AngleSource::layout : src == "regime" ? AngleSource::regime
           : src == "special" ? AngleSource::special : AngleSource::randn;
  if (auto r = ref::parse_regime(meta("regime"))) s.regime = *r;
  const char* gd = safetensors_dtype(s.grad_dtype);
  Tensor& gc = need("grad_cos");
  Tensor& gs = need("grad_sin");
  if (gc.dtype != gd || gs.dtype != gd) bad(path, std::string("grads: expected dtype ") + gd + ", found " + gc.dtype);
  g.problem.gc = std::move(gc.data);
  g.problem.gs = std::move(gs.data);
  g.problem.theta = as_f32(need("idx_theta"), path + ": idx_theta");
  const std::int64_t n = g.problem.n();
  g.expected.fp32 = as_f32(need("grad_idx_theta"), path + ": grad_idx_theta");
  const Tensor& sc = need("scale");
  if (sc.dtype != "F64" || sc.elements() != n) bad(path, "scale: expected F64 of " + std::to_string(n) + " elements");
  g.expected.scale.resize(n);
  std::memcpy(g.expected.scale.data(), sc.data.data(), sc.data.size());
  for (auto [name, vec] : {std::pair{"grad_idx_theta_bf16", &g.expected.bf16}, std::pair{"grad_idx_theta_fp16", &g.expected.fp16}}) {
    const Tensor& t = need(name);
    if (t.elements() != n || dtype_size(t.dtype) != 2) bad(path, std::string(name) + ": expected 16-bit of n elements");
    vec->resize(n);
    std::memcpy(vec->data(), t.data.data(), t.data.size());
  }
  if (static_cast<std::int64_t>(g.problem.gc.size()) != n * ref::size_bytes(s.grad_dtype) ||
      static_cast<std::int64_t>(g.expected.fp32.size()) != n)
    bad(path, "tensor sizes disagree");
  if (st.tensors.count("positions")) {
    const Tensor& p = st.tensors["positions"];
    g.problem.positions.resize(p.elements());
    std::memcpy(g.problem.positions.data(), p.data.data(), p.data.size());
    g.problem.theta_table = as_f32(need("theta"), path + ": theta");
  }
  return g;
}

}  // namespace rope2d::verify
