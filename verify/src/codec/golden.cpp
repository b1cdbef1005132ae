// Writing and reading golden sets.
#include "rope2d/verify/codec/golden.hpp"
#include "rope2d/verify/model/sxb_rules.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <csignal>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <stdexcept>

#include "rope2d/ref/counter_random.hpp"
#include "rope2d/ref/floats.hpp"
#include "codec/input.hpp"

#include "codec/json_schema.hpp"
#include "rope2d/verify/codec/safetensors.hpp"
#include "codec/validate.hpp"

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

void write_text(const std::string& path, const std::string& text) { write_file_atomic(path, {text}); }

// The reference of a large problem in slices of this many elements, each announced (the
// largest benchmark workload takes half a minute). Elementwise, so the slices change no bit.
constexpr std::int64_t reference_slice = std::int64_t{1} << 20;  // a fraction of a second each: SIGINT acts between them

Expected expected_in_slices(const Problem& p, const std::function<void(const std::string&)>& phase) {
  const std::int64_t n = p.n();
  if (n <= reference_slice) return compute_expected(p, true);
  const std::int64_t width = static_cast<std::int64_t>(ref::size_bytes(p.spec.grad_dtype));
  Expected x;
  x.fp32.reserve(n);
  x.scale.reserve(n);
  x.bf16.reserve(n);
  x.fp16.reserve(n);
  for (std::int64_t b = 0; b < n; b += reference_slice) {
    const std::int64_t e = std::min(n, b + reference_slice);
    if (b > 0) phase("reference, " + std::to_string(b) + " of " + std::to_string(n) + " elements");
    Problem slice;
    slice.spec = p.spec;
    slice.gc.assign(p.gc.begin() + b * width, p.gc.begin() + e * width);
    slice.gs.assign(p.gs.begin() + b * width, p.gs.begin() + e * width);
    slice.theta.assign(p.theta.begin() + b, p.theta.begin() + e);
    const Expected part = compute_expected(slice, true);
    x.fp32.insert(x.fp32.end(), part.fp32.begin(), part.fp32.end());
    x.scale.insert(x.scale.end(), part.scale.begin(), part.scale.end());
    x.bf16.insert(x.bf16.end(), part.bf16.begin(), part.bf16.end());
    x.fp16.insert(x.fp16.end(), part.fp16.begin(), part.fp16.end());
    x.stats.fast += part.stats.fast;
    x.stats.fallback += part.stats.fallback;
  }
  return x;
}

// The problems SOL-ExecBench's 090 definition can take: bf16 grads, [batch, seq_len, 128].
bool exportable(const ProblemSpec& s) { return s.elements < 0 && s.grad_dtype == ref::Dtype::bf16 && s.head_dim == 128; }

volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_signal(int) { interrupted = 1; }

// Problem s's tensors: its inputs, the reference in every output dtype and its scale, the
// positions of a layout problem, and the spec in the metadata.
SafeTensors golden_tensors(const ProblemSpec& s, const Problem& p, const Expected& x) {
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
  return st;
}

// Read back: what is on disk is what was computed.
void check_read_back(const std::string& fpath, const SafeTensors& st) {
  const SafeTensors back = read_safetensors(fpath);
  for (const auto& [tname, t] : st.tensors)
    if (!back.tensors.count(tname) || back.tensors.at(tname).data != t.data)
      throw std::invalid_argument(fpath + ": tensor " + tname + " reads back different from what was written");
}

// Problem s as a SOL-ExecBench workload reading its file at sol_path.
ordered_json solexecbench_workload(const ProblemSpec& s, const std::string& sol_path) {
  return {{"uuid", s.name()},
          {"axes", {{"batch_size", s.batch}, {"seq_len", s.seq_len}}},
          {"inputs",
           {{"grad_cos", {{"type", "safetensors"}, {"path", sol_path}, {"tensor_key", "grad_cos"}}},
            {"grad_sin", {{"type", "safetensors"}, {"path", sol_path}, {"tensor_key", "grad_sin"}}},
            {"idx_theta", {{"type", "safetensors"}, {"path", sol_path}, {"tensor_key", "idx_theta"}}}}},
          {"tolerance", {{"max_atol", 1e-5}, {"max_rtol", 1e-5}}}};
}

// A SOL-ExecBench problem directory in dir whose workloads read the set's files, and the
// problems left out of it with their reasons.
void write_solexecbench(const std::string& dir, const ordered_json& workloads, const ordered_json& not_exported) {
  const fs::path sol = fs::path(dir) / "solexecbench";
  fs::create_directory(sol);
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
  write_text((sol / "definition.json").string(), def.dump(2) + "\n");
  std::string lines;
  for (const auto& j : workloads) lines += j.dump() + "\n";
  write_text((sol / "workload.jsonl").string(), lines);
  std::string left_out;
  for (const auto& j : not_exported) left_out += j.dump() + "\n";
  write_text((sol / "not_exported.jsonl").string(), left_out);
}

// The set's manifest: its schema, generator, command line and seeds, what its reference is, and
// each file with its sha256.
void write_manifest(const std::string& dir, const std::vector<ProblemSpec>& specs, const std::string& command_line,
                    const ordered_json& files) {
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
  write_text((fs::path(dir) / "manifest.json").string(), manifest.dump(2) + "\n");
}

// Every file of the set into dir (a fresh staging folder), each read back and its sha256
// recomputed from disk; the manifest last.
// path_prefix is put before each file name in workload.jsonl: empty (relative to the set, the
// trace root) or the set's final folder with a trailing slash.
void write_set(const std::string& dir, const std::vector<ProblemSpec>& specs, const std::string& command_line,
               const ProgressFn& progress, const std::string& path_prefix) {
  ordered_json files = ordered_json::array();
  ordered_json workloads = ordered_json::array();
  ordered_json not_exported = ordered_json::array();  // benchmark-shaped, but the official rules would fail the exact result
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ProblemSpec& s = specs[k];
    if (interrupted) throw std::invalid_argument("interrupted by a signal; the previous set at the target is untouched");
    auto phase = [&](const std::string& what) {  // between slices too, so a signal acts within a second
      if (interrupted) throw std::invalid_argument("interrupted by a signal; the previous set at the target is untouched");
      if (progress) progress(k, specs.size(), s.name() + ": " + what);
    };
    phase("inputs");
    const Problem p = make_problem(s);
    phase("reference (" + std::to_string(p.n()) + " elements)");
    const Expected x = expected_in_slices(p, phase);
    const SafeTensors st = golden_tensors(s, p, x);
    const std::string name = file_name(s);
    if (p.n() == 0) throw std::invalid_argument("problem " + s.name() + ": zero elements; a golden set holds none empty");
    const std::string fpath = (fs::path(dir) / name).string();
    if (fs::exists(fpath)) throw std::invalid_argument("problem " + s.name() + ": file name " + name + " used twice (duplicate problem)");
    phase("writing");
    write_safetensors(fpath, st, [] { return interrupted != 0; });
    phase("reading back");
    check_read_back(fpath, st);
    files.push_back({{"file", name}, {"problem", s.name()}, {"elements", p.n()}, {"sha256", sha256_file(fpath)}});
    const std::string excluded = exportable(s) ? sxb_export_exclusion(x.fp32, x.scale) : "";
    if (!excluded.empty()) not_exported.push_back({{"problem", s.name()}, {"file", name}, {"reason", excluded}});
    else if (exportable(s)) workloads.push_back(solexecbench_workload(s, path_prefix + name));
  }
  write_solexecbench(dir, workloads, not_exported);
  write_manifest(dir, specs, command_line, files);
}

}  // namespace

std::string generator_version() { return ROPE2D_VERSION; }

namespace {

// Swaps staging in for target: atomically where the filesystem can exchange two names,
// else by two renames with SIGINT/SIGTERM held off between them.
void swap_in(const fs::path& staging, const fs::path& target) {
  if (!fs::exists(target)) {
    fs::rename(staging, target);
    return;
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(staging);  // now the previous set
    return;
  }
  std::string old = (target.parent_path() / ("." + target.filename().string() + ".old-XXXXXX")).string();
  if (!::mkdtemp(old.data())) throw std::invalid_argument(target.string() + ": cannot make a folder beside it");
  sigset_t block, prev;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &prev);
  fs::rename(target, old);
  fs::rename(staging, target);
  sigprocmask(SIG_SETMASK, &prev, nullptr);
  fs::remove_all(old);
}

// The staging and old folders of a run that was killed (SIGKILL, a crash, a power cut) before
// it could remove them: ".NAME.staging-XXXXXX" and ".NAME.old-XXXXXX" beside the target.
void remove_stale(const fs::path& parent, const std::string& name) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string f = e.path().filename().string();
    for (const std::string& prefix : {"." + name + ".staging-", "." + name + ".old-"})
      if (f.size() == prefix.size() + 6 && f.starts_with(prefix) && e.is_directory(ec) && !e.is_symlink(ec)) fs::remove_all(e.path(), ec);
  }
}

}  // namespace

void write_golden(const std::string& dir, const std::vector<ProblemSpec>& specs, const std::string& command_line,
                  const ProgressFn& progress, bool force, SolPaths paths) {
  if (specs.empty()) throw std::invalid_argument("golden: no problems to write; a golden set holds at least one");
  // The folder itself a directory or nothing: a symbolic link there is refused, never followed
  // or replaced. Its parents are resolved, so that the lock and the staging folder sit beside
  // the folder that is written.
  require_output_folder(dir);
  std::error_code ec;
  fs::path target = fs::weakly_canonical(fs::absolute(dir), ec);
  if (ec) throw std::invalid_argument(dir + ": cannot resolve (" + ec.message() + ")");
  const fs::path tname = target.filename().empty() ? target.parent_path().filename() : target.filename();
  const fs::path parent = (target.filename().empty() ? target.parent_path() : target).parent_path();
  const fs::path final_target = parent / tname;
  fs::create_directories(parent, ec);
  if (ec) throw std::invalid_argument(parent.string() + ": cannot create (" + ec.message() + ")");
  if (fs::exists(final_target)) {
    if (!fs::is_directory(final_target)) throw std::invalid_argument(dir + ": exists and is not a folder");
    if (!fs::is_empty(final_target) && !force)
      throw std::invalid_argument(dir + ": not empty; --force replaces its contents with the new set");
    // --force replaces a golden set, never an unrelated folder.
    if (!fs::is_empty(final_target) && !fs::exists(final_target / "manifest.json"))
      throw std::invalid_argument(dir + ": not empty and not a golden set (no manifest.json); refusing to replace it");
  }
  // One writer per target.
  const std::string lock_path = (parent / ("." + tname.string() + ".lock")).string();
  require_output_file(lock_path);
  // O_NOFOLLOW and O_NONBLOCK: a link or FIFO put there after the check is refused, not opened.
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (lock < 0) throw std::invalid_argument(lock_path + ": cannot create (" + std::strerror(errno) + ")");
  if (struct stat st {}; ::fstat(lock, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(lock);
    throw std::invalid_argument(lock_path + ": expected a regular file or nothing, found " + file_kind(lock_path));
  }
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock);
    throw std::invalid_argument(dir + ": another rope2d golden is writing this set");
  }
  remove_stale(parent, tname.string());  // under the lock: no other writer's folders
  std::string staging = (parent / ("." + tname.string() + ".staging-XXXXXX")).string();
  if (!::mkdtemp(staging.data())) {
    ::close(lock);
    throw std::invalid_argument(parent.string() + ": cannot create a staging folder (" + std::strerror(errno) + ")");
  }
  fs::permissions(staging, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                               fs::perms::others_exec, ec);  // mkdtemp's 0700 would hide the set from others
  interrupted = 0;
  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  auto restore = [&] {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    ::close(lock);
  };
  try {
    write_set(staging, specs, command_line, progress, paths == SolPaths::absolute ? final_target.string() + "/" : "");
    open_golden(staging);  // the whole set as a reader sees it: manifest, checksums
    if (interrupted) throw std::invalid_argument("interrupted by a signal; the previous set at the target is untouched");
    swap_in(staging, final_target);
  } catch (...) {
    fs::remove_all(staging, ec);
    restore();
    throw;
  }
  restore();
}

GoldenSet open_golden(const std::string& dir) {
  const std::string mpath = (fs::path(dir) / "manifest.json").string();
  if (!fs::exists(mpath)) bad(mpath, "cannot open (is " + dir + " a golden set?)");
  // Types, the schema's name, names and digests: verify/schema/golden-manifest.schema.json.
  const nlohmann::json m = read_json_file(mpath, JsonFormat::golden_manifest);
  GoldenSet set{dir, m.value("command", std::string()), {}};
  std::set<std::string> seen;
  for (std::size_t i = 0; i < m["files"].size(); ++i) {
    const auto& f = m["files"][i];
    const std::string where = mpath + ": files[" + std::to_string(i) + "]";
    GoldenFile g{f["file"].get<std::string>(), f["problem"].get<std::string>(), f["sha256"].get<std::string>(),
                 f["elements"].get<std::int64_t>()};
    if (g.file.find('\0') != std::string::npos) bad_input(where, "file", "a plain file name", brief(f["file"]));
    if (!seen.insert(g.file).second) bad_input(where, "file", "each file once", brief(f["file"]) + " twice");
    const std::string path = (fs::path(dir) / g.file).string();
    const std::string sum = sha256_file(path);  // regular files only: a FIFO or device is refused, not read
    if (sum != g.sha256) bad(path, "sha256 " + sum + " differs from the manifest's " + g.sha256);
    set.files.push_back(std::move(g));
  }
  return set;
}

namespace {

std::string meta(const SafeTensors& st, const std::string& path, const char* key) {
  const auto it = st.metadata.find(key);
  if (it == st.metadata.end()) bad_input(path, std::string("__metadata__.") + key, "a value", "nothing");
  return it->second;
}

std::int64_t meta_int(const SafeTensors& st, const std::string& path, const char* key, std::int64_t lo, std::int64_t hi) {
  return parse_int(meta(st, path, key), path + ": __metadata__." + key, lo, hi);
}

// The problem as the metadata describes it; every number range-checked.
ProblemSpec spec_from_metadata(const SafeTensors& st, const std::string& path) {
  ProblemSpec s;
  s.set = meta(st, path, "set");
  const auto d = ref::parse_dtype(meta(st, path, "grad_dtype"));
  if (!d) bad_input(path, "__metadata__.grad_dtype", ref::grad_dtype_names(), brief(nlohmann::json(meta(st, path, "grad_dtype"))));
  s.grad_dtype = *d;
  s.batch = meta_int(st, path, "batch", 1, std::int64_t{1} << 31);
  s.seq_len = meta_int(st, path, "seq_len", 1, std::int64_t{1} << 31);
  s.head_dim = meta_int(st, path, "head_dim", 2, 65536);
  s.elements = meta_int(st, path, "elements", -1, std::int64_t{1} << 40);
  try {
    s.offset = ProblemSpec::parse_offsets(meta(st, path, "misalign"));
  } catch (const std::invalid_argument& e) {
    bad_input(path, "__metadata__.misalign", "k or a,b,c,d element offsets", brief(nlohmann::json(meta(st, path, "misalign"))));
  }
  for (int o : s.offset)
    if (o > 4096) bad_input(path, "__metadata__.misalign", "offsets of at most 4096 elements", std::to_string(o));
  s.seed = parse_uint(meta(st, path, "seed"), path + ": __metadata__.seed");
  const std::string src = meta(st, path, "source");
  if (src != "layout" && src != "regime" && src != "randn" && src != "special")
    bad_input(path, "__metadata__.source", "randn, layout, regime or special", brief(nlohmann::json(src)));
  s.source = src == "layout" ? AngleSource::layout : src == "regime" ? AngleSource::regime
           : src == "special" ? AngleSource::special : AngleSource::randn;
  const std::string reg = meta(st, path, "regime");
  const auto r = ref::parse_regime(reg);
  if (!r) bad_input(path, "__metadata__.regime", "a regime name", brief(nlohmann::json(reg)));
  s.regime = *r;
  checked_product({s.batch, s.seq_len, s.head_dim}, path + ": __metadata__ batch x seq_len x head_dim");
  if (s.n() == 0) bad_input(path, "__metadata__.elements", "at least one element", "0");
  return s;
}

// A layout problem's angles are its positions times its theta table: idx_theta must say so,
// bit for bit, or a kernel is judged on angles that no layout gives.
void check_layout_angles(const Problem& p, const std::string& path) {
  const std::int64_t n = p.spec.n();
  for (std::int64_t i = 0; i < n; ++i) {
    const float want = ref::counter::layout_angle(p.positions.data(), p.theta_table.data(), i, p.spec.head_dim);
    if (std::bit_cast<std::uint32_t>(want) != std::bit_cast<std::uint32_t>(p.theta[i]))
      bad_input(path, "tensor idx_theta[" + std::to_string(i) + "]",
                ref::hex(want) + " (from tensors positions and theta)", ref::hex(p.theta[i]));
  }
}

template <class T>
std::vector<T> copy_of(const Tensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

GoldenProblem load_golden(const GoldenSet& set, const GoldenFile& f) {
  const std::string path = (fs::path(set.dir) / f.file).string();
  SafeTensors st = read_safetensors(path);
  GoldenProblem g;
  ProblemSpec& s = g.problem.spec;
  s = spec_from_metadata(st, path);
  // Every tensor of exactly the problem's dtype and shape before a byte is copied.
  const std::vector<std::int64_t> shape = s.shape();
  const char* gd = safetensors_dtype(s.grad_dtype);
  g.problem.gc = need_tensor(st, "grad_cos", path, gd, shape).data;
  g.problem.gs = need_tensor(st, "grad_sin", path, gd, shape).data;
  g.problem.theta = copy_of<float>(need_tensor(st, "idx_theta", path, "F32", shape));
  g.expected.fp32 = copy_of<float>(need_tensor(st, "grad_idx_theta", path, "F32", shape));
  g.expected.scale = copy_of<double>(need_tensor(st, "scale", path, "F64", shape));
  g.expected.bf16 = copy_of<std::uint16_t>(need_tensor(st, "grad_idx_theta_bf16", path, "BF16", shape));
  g.expected.fp16 = copy_of<std::uint16_t>(need_tensor(st, "grad_idx_theta_fp16", path, "F16", shape));
  const bool has_positions = st.tensors.count("positions") != 0;
  if (has_positions != (s.source == AngleSource::layout))
    bad_input(path, "tensor positions", s.source == AngleSource::layout ? "present (a layout problem)" : "absent (not a layout problem)",
              has_positions ? "present" : "absent");
  if (has_positions) {
    if (s.elements >= 0) bad_input(path, "__metadata__.elements", "-1 for a layout problem", std::to_string(s.elements));
    g.problem.positions = copy_of<std::int32_t>(need_tensor(st, "positions", path, "I32", {s.batch, s.seq_len, 2}));
    g.problem.theta_table = copy_of<float>(need_tensor(st, "theta", path, "F32", {s.head_dim / 2}));
    check_layout_angles(g.problem, path);
  }
  if (const std::string problem = meta(st, path, "problem"); problem != f.problem)
    bad_input(path, "__metadata__.problem", brief(nlohmann::json(f.problem)) + " (the manifest's)", brief(nlohmann::json(problem)));
  if (s.n() != f.elements)
    bad_input(path, "elements", std::to_string(f.elements) + " (the manifest's)", std::to_string(s.n()));
  return g;
}

}  // namespace rope2d::verify
