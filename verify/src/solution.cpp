// Verifying SOL-ExecBench solutions through the Python runner.
#include "rope2d/verify/solution.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rope2d/verify/judge.hpp"
#include "rope2d/verify/safetensors.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) { throw std::invalid_argument(path + ": " + what); }

std::string job_name(const ProblemSpec& s, int round) { return s.name() + "#" + std::to_string(round); }

bool has_suffix(const std::string& f, std::initializer_list<const char*> suffixes) {
  for (const char* x : suffixes)
    if (f.size() > std::strlen(x) && f.compare(f.size() - std::strlen(x), std::strlen(x), x) == 0) return true;
  return false;
}

// spec.languages and spec.target_hardware as SOL-ExecBench's loader takes them (both optional
// here; python/rope2d/solution_schema.py holds the full rules), and compile_options for C++.
void read_languages(const std::string& path, const json& spec, Solution& s) {
  static const std::set<std::string> py = {"pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend"};
  static const std::set<std::string> cpp = {"cuda_cpp", "cutlass", "cudnn", "cublas"};
  if (spec.contains("languages")) {
    if (!spec["languages"].is_array()) bad(path, "spec.languages: expected a list such as [\"pytorch\"] or [\"cuda_cpp\"]");
    for (const auto& l : spec["languages"]) {
      const std::string x = l.is_string() ? l.get<std::string>() : l.dump();
      if (!py.count(x) && !cpp.count(x))
        bad(path, "spec.languages: expected pytorch, triton, cute_dsl, cutile, cudnn_frontend, cuda_cpp, cutlass, cudnn or "
                  "cublas, found \"" + x + "\"");
      s.languages.push_back(x);
      s.cpp |= cpp.count(x) > 0;
    }
  }
  if (spec.contains("target_hardware") && (!spec["target_hardware"].is_array() || spec["target_hardware"].empty()))
    bad(path, "spec.target_hardware: expected a non-empty list such as [\"local\"], found " + spec["target_hardware"].dump());
  const json opts = spec.value("compile_options", json::object());
  if (!opts.is_object()) bad(path, "spec.compile_options: expected an object, found " + opts.dump());
  for (const char* k : {"cflags", "cuda_cflags", "ld_flags"})
    if (opts.contains(k) && (!opts[k].is_array() || !std::all_of(opts[k].begin(), opts[k].end(), [](const json& f) { return f.is_string(); })))
      bad(path, std::string("spec.compile_options.") + k + ": expected a list of strings, found " + opts[k].dump());
  s.compile_options = opts.dump();
  if (s.cpp && !opts.contains("cuda_cflags"))
    s.warnings.push_back("compile_options.cuda_cflags not given: built with SOL-ExecBench's default -O3 --use_fast_math "
                         "(__sinf/__cosf: inaccurate beyond a few radians)");
}

// 3. Judge every output: the runner's record of each call is its integrity, its file the
//    outputs. A set stops at its first call without outputs.
std::vector<SetResult> judge_outputs(const std::vector<ProblemSpec>& specs, const SolutionRun& run, const json& jobs,
                                     const std::map<std::string, json>& called, const std::string& load_error) {
  Judge judge(run.gate, run.rounds);
  judge.stop_set_on_error = true;
  std::vector<SetResult> results;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ProblemSpec& spec = specs[k];
    const Entry entry{"", [&](const Problem& p, int r) {
      CallResult c;
      const auto it = called.find(job_name(spec, r));
      if (it == called.end()) {
        c.error = load_error.empty() ? "not run" : load_error;
        return c;
      }
      const json& m = it->second;
      if (const json err = m.value("error", json()); !err.is_null()) {
        c.error = err.is_string() ? err.get<std::string>() : err.dump();
        return c;
      }
      const std::vector<std::int64_t> want = spec.shape();
      if (m.value("shape", json::array()) != json(want) || m.value("dtype", "") != "float32") {
        c.error = "output shape " + m.value("shape", json::array()).dump() + " dtype " + m.value("dtype", "?") +
                  ", expected " + json(want).dump() + " float32";
        return c;
      }
      if (!m.value("inputs_unchanged", true)) c.findings.push_back("inputs modified by the call");
      if (!m.value("deterministic", true)) c.findings.push_back("a second call on the same inputs gave different bits");
      const SafeTensors out = read_safetensors(jobs[k * run.rounds + r]["output"].get<std::string>());
      if (!out.tensors.count("grad_idx_theta")) {
        c.error = "the runner wrote no grad_idx_theta";
        return c;
      }
      c.out = as_f32(out.tensors.at("grad_idx_theta"), spec.name());
      if (static_cast<std::int64_t>(c.out.size()) != p.n())
        c.error = "output holds " + std::to_string(c.out.size()) + " elements, expected " + std::to_string(p.n());
      return c;
    }, {}};
    for (SetResult& r : judge.judge(spec, {entry})) results.push_back(std::move(r));
  }
  return results;
}

}  // namespace

Solution prepare_solution(const std::string& path, const std::string& dir) {
  std::ifstream in(path);
  if (!in) bad(path, "cannot open");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    bad(path, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("spec") || !j["spec"].is_object()) bad(path, "spec: expected an object");
  const json& spec = j["spec"];
  Solution s;
  s.path = path;
  s.sha256 = sha256_file(path);
  s.name = j.value("name", fs::path(path).stem().string());
  if (!spec.contains("entry_point") || !spec["entry_point"].is_string()) bad(path, "spec.entry_point: expected \"file.py::function\"");
  s.entry_point = spec["entry_point"];
  read_languages(path, spec, s);
  const auto sep = s.entry_point.find("::");
  const std::string file = sep == std::string::npos ? "" : s.entry_point.substr(0, sep);
  const bool suffix_ok = s.cpp ? has_suffix(file, {".cu", ".cpp", ".cc", ".cxx"}) : has_suffix(file, {".py"});
  if (sep == std::string::npos || sep == 0 || !suffix_ok)
    bad(path, std::string("spec.entry_point: expected \"") + (s.cpp ? "kernel.cu" : "file.py") + "::function\", found \"" +
                  s.entry_point + "\"");
  s.binding = spec.value("binding", "torch");
  if (s.binding != "torch") bad(path, "spec.binding: only \"torch\" is supported, found \"" + s.binding + "\"");
  s.destination_passing = spec.value("destination_passing_style", true);
  if (!j.contains("sources") || !j["sources"].is_array() || j["sources"].empty()) bad(path, "sources: expected a non-empty array");
  s.dir = dir;
  fs::create_directories(dir);
  bool has_entry = false;
  for (std::size_t i = 0; i < j["sources"].size(); ++i) {
    const json& src = j["sources"][i];
    const std::string where = "sources[" + std::to_string(i) + "]";
    if (!src.is_object() || !src.contains("path") || !src.contains("content") || !src["path"].is_string() ||
        !src["content"].is_string())
      bad(path, where + ": expected {\"path\": ..., \"content\": ...}");
    const fs::path rel = src["path"].get<std::string>();
    if (rel.is_absolute() || rel.lexically_normal().string().rfind("..", 0) == 0)
      bad(path, where + ".path: must stay inside the solution, found \"" + rel.string() + "\"");
    const fs::path out = fs::path(dir) / rel;
    fs::create_directories(out.parent_path());
    std::ofstream(out, std::ios::binary) << src["content"].get<std::string>();
    has_entry |= rel.lexically_normal().string() == s.entry_point.substr(0, sep);
  }
  if (!has_entry) bad(path, "spec.entry_point names " + s.entry_point.substr(0, sep) + ", which no source provides");
  return s;
}

std::vector<SetResult> run_solution(const Solution& s, const std::vector<ProblemSpec>& specs, const SolutionRun& run) {
  fs::create_directories(run.work_dir);
  // 1. Inputs of every call, as the benchmark shapes them.
  json jobs = json::array();
  for (std::size_t k = 0; k < specs.size(); ++k)
    for (int r = 0; r < run.rounds; ++r) {
      const Problem p = make_problem(specs[k].round(r));
      const ProblemSpec& ps = p.spec;
      const std::vector<std::int64_t> shape = ps.shape();
      SafeTensors st;
      st.tensors["grad_cos"] = Tensor{safetensors_dtype(ps.grad_dtype), shape, p.gc};
      st.tensors["grad_sin"] = Tensor{safetensors_dtype(ps.grad_dtype), shape, p.gs};
      st.tensors["idx_theta"] = make_tensor("F32", shape, p.theta);
      const std::string base = (fs::path(run.work_dir) / (std::to_string(k) + "_" + std::to_string(r))).string();
      write_safetensors(base + ".in.safetensors", st);
      fs::remove(base + ".out.safetensors");
      jobs.push_back({{"name", job_name(specs[k], r)}, {"inputs", base + ".in.safetensors"}, {"output", base + ".out.safetensors"}});
    }
  const std::string jobs_path = (fs::path(run.work_dir) / "jobs.json").string();
  std::ofstream(jobs_path) << jobs.dump();

  // 2. The runner, with an overall time limit as a backstop to the per-call one.
  const double budget = run.call_timeout_s * static_cast<double>(jobs.size()) * 2 + 60;
  const std::string cmd = "timeout -k 5 " + std::to_string(static_cast<long>(budget)) + " " + shell_quote(run.python) + " " +
                          shell_quote(run.runner) + " " + shell_quote(s.dir) + " " + shell_quote(s.entry_point) + " " +
                          (s.destination_passing ? "1" : "0") + " " + shell_quote(jobs_path) + " " +
                          shell_quote(json{{"cpp", s.cpp}, {"compile_options", json::parse(s.compile_options)}}.dump()) + " 2>" +
                          shell_quote((fs::path(run.work_dir) / "runner.stderr").string());
  std::map<std::string, json> called;
  std::string load_error;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) load_error = "cannot start " + run.python;
  std::string buffer;
  std::array<char, 4096> buf;
  while (pipe && fgets(buf.data(), buf.size(), pipe)) {
    buffer += buf.data();
    if (buffer.empty() || buffer.back() != '\n') continue;
    const json m = json::parse(buffer, nullptr, false);
    if (run.on_line) run.on_line(buffer);
    buffer.clear();
    if (m.is_discarded()) continue;
    if (m.value("type", "") == "called") called[m.value("name", "")] = m;
    if (m.value("type", "") == "load_error") load_error = m.value("message", "");
  }
  const int status = pipe ? pclose(pipe) : -1;
  if (load_error.empty() && called.size() < jobs.size()) {
    std::ifstream err((fs::path(run.work_dir) / "runner.stderr").string());
    std::string tail((std::istreambuf_iterator<char>(err)), {});
    if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
    load_error = "the Python runner stopped early (status " + std::to_string(status) + "): " + tail;
  }

  return judge_outputs(specs, run, jobs, called, load_error);
}

}  // namespace rope2d::verify
