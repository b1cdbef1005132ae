// Verifying SOL-ExecBench solutions through the Python runner.
#include "rope2d/verify/solution.hpp"
#include "rope2d/verify/worst.hpp"

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

#include "rope2d/ref/input.hpp"
#include "rope2d/verify/judge.hpp"
#include "rope2d/verify/safetensors.hpp"
#include "rope2d/verify/spawn.hpp"
#include "rope2d/verify/validate.hpp"

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
      const std::string x = l.is_string() ? l.get<std::string>() : ref::brief(l);
      if (!py.count(x) && !cpp.count(x))
        bad(path, "spec.languages: expected pytorch, triton, cute_dsl, cutile, cudnn_frontend, cuda_cpp, cutlass, cudnn or "
                  "cublas, found \"" + x + "\"");
      s.languages.push_back(x);
      s.cpp |= cpp.count(x) > 0;
    }
  }
  if (spec.contains("target_hardware") && (!spec["target_hardware"].is_array() || spec["target_hardware"].empty()))
    bad(path, "spec.target_hardware: expected a non-empty list such as [\"local\"], found " + ref::brief(spec["target_hardware"]));
  const json opts = spec.value("compile_options", json::object());
  if (!opts.is_object()) bad(path, "spec.compile_options: expected an object, found " + ref::brief(opts));
  for (const char* k : {"cflags", "cuda_cflags", "ld_flags"})
    if (opts.contains(k) && (!opts[k].is_array() || !std::all_of(opts[k].begin(), opts[k].end(), [](const json& f) { return f.is_string(); })))
      bad(path, std::string("spec.compile_options.") + k + ": expected a list of strings, found " + ref::brief(opts[k]));
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
  judge.subnormals = run.subnormals;
  judge.worst_dir = run.worst_dir;
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
      if (m.contains("error") && !m["error"].is_null()) {
        c.error = m["error"].is_string() ? m["error"].get<std::string>() : ref::brief(m["error"]);
        return c;
      }
      const std::vector<std::int64_t> want = spec.shape();
      const json shape = m.contains("shape") ? m["shape"] : json();
      const json dtype = m.contains("dtype") ? m["dtype"] : json();
      if (shape != json(want) || dtype != "float32") {
        c.error = "output shape " + ref::brief(shape) + " dtype " + ref::brief(dtype) + ", expected " + json(want).dump() + " float32";
        return c;
      }
      if (m.contains("findings") && m["findings"].is_array())  // the call contract's checks (solution_runner.py)
        for (const json& f : m["findings"]) c.findings.push_back(f.is_string() ? f.get<std::string>() : ref::brief(f));
      if (m.contains("inputs_unchanged") && m["inputs_unchanged"] != true) c.findings.push_back("inputs modified by the call");
      if (m.contains("deterministic") && m["deterministic"] != true)
        c.findings.push_back("a second call on the same inputs gave different bits");
      SafeTensors out;
      try {  // the runner wrote it from the submission's result: a bad file is the submission's
        out = read_safetensors(jobs[k * run.rounds + r]["output"].get<std::string>());
      } catch (const std::invalid_argument& e) {
        c.error = std::string("the runner's output: ") + e.what();
        return c;
      }
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

// What importing the solution changed, in words (a replaced torch attribute also fails every
// call: the runner lists it among each call's findings).
void load_notes(const json& m, std::vector<std::string>* notes) {
  if (!notes) return;
  const auto list = [&](const char* key, const std::string& what) {
    if (!m.contains(key) || !m[key].is_array() || m[key].empty()) return;
    std::string s = what;
    for (std::size_t i = 0; i < m[key].size(); ++i) s += (i ? ", " : " ") + (m[key][i].is_string() ? m[key][i].get<std::string>() : ref::brief(m[key][i]));
    notes->push_back(s);
  };
  list("state", "importing the solution changed torch's global state:");
  list("patched", "importing the solution replaced torch attributes:");
  list("threads", "importing the solution left threads running:");
}

// Per set: the first call of each problem (compilation, for JIT kernels) apart from the calls
// judged after it, and the runner's notes (threads a first call left running).
void time_notes(const std::vector<ProblemSpec>& specs, int rounds, const std::map<std::string, json>& called,
                std::vector<std::string>& notes) {
  std::map<std::string, std::array<double, 3>> per_set;  // first calls, later calls, shapes
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const ProblemSpec& spec : specs)
    for (int r = 0; r < rounds; ++r) {
      const auto it = called.find(job_name(spec, r));
      if (it == called.end()) continue;
      const json& m = it->second;
      if (!per_set.count(spec.set)) order.push_back(spec.set);
      auto& t = per_set[spec.set];
      const auto seconds = [&](const char* k) { return m.contains(k) && m[k].is_number() ? m[k].get<double>() : 0.0; };
      t[0] += seconds("first_call_s");
      t[1] += seconds("calls_s");
      t[2] += 1;
      if (m.contains("notes") && m["notes"].is_array())
        for (const json& n : m["notes"])
          if (n.is_string() && seen.insert(n.get<std::string>()).second) notes.push_back(n.get<std::string>());
    }
  std::string line = "time per set, first call of each problem (compiling JIT kernels) / the two calls after it (all judged):";
  char buf[160];
  for (const std::string& set : order) {
    const auto& t = per_set[set];
    std::snprintf(buf, sizeof buf, " %s %.1f s / %.1f s (%d calls);", set.c_str(), t[0], t[1], static_cast<int>(t[2]) * 3);
    line += buf;
  }
  if (!order.empty()) notes.push_back(line);
}

}  // namespace

Solution prepare_solution(const std::string& path, const std::string& dir) {
  const json j = ref::read_json_file(path);
  if (!j.is_object()) ref::bad_input(path, "(top)", "an object", ref::brief(j));
  if (!j.contains("spec") || !j["spec"].is_object())
    ref::bad_input(path, "spec", "an object", j.contains("spec") ? ref::brief(j["spec"]) : "nothing");
  const json& spec = j["spec"];
  const std::string& where = path;
  Solution s;
  s.path = path;
  s.sha256 = sha256_file(path);
  s.name = j.contains("name") ? ref::string_field(j, "name", path) : fs::path(path).stem().string();
  s.entry_point = ref::string_field(spec, "entry_point", where, "spec.");
  read_languages(path, spec, s);
  const auto sep = s.entry_point.find("::");
  const std::string file = sep == std::string::npos ? "" : s.entry_point.substr(0, sep);
  const bool suffix_ok = s.cpp ? has_suffix(file, {".cu", ".cpp", ".cc", ".cxx"}) : has_suffix(file, {".py"});
  if (sep == std::string::npos || sep == 0 || !suffix_ok)
    ref::bad_input(where, "spec.entry_point", s.cpp ? "\"kernel.cu::function\"" : "\"file.py::function\"", ref::brief(spec["entry_point"]));
  s.binding = spec.contains("binding") ? ref::string_field(spec, "binding", where, "spec.") : "torch";
  if (s.binding != "torch") ref::bad_input(where, "spec.binding", "\"torch\"", ref::brief(spec["binding"]));
  s.destination_passing = spec.contains("destination_passing_style") ? ref::bool_field(spec, "destination_passing_style", where, "spec.") : true;
  if (!j.contains("sources") || !j["sources"].is_array() || j["sources"].empty())
    ref::bad_input(path, "sources", "a non-empty array", j.contains("sources") ? ref::brief(j["sources"]) : "nothing");
  s.dir = dir;
  fs::create_directories(dir);
  bool has_entry = false;
  for (std::size_t i = 0; i < j["sources"].size(); ++i) {
    const json& src = j["sources"][i];
    const std::string where = "sources[" + std::to_string(i) + "]";
    const std::string content = ref::string_field(src, "content", path, where + ".");
    const std::string rel_s = ref::string_field(src, "path", path, where + ".");
    const fs::path rel = rel_s;
    if (rel_s.empty() || rel_s.find('\0') != std::string::npos || rel.is_absolute() ||
        rel.lexically_normal().string().rfind("..", 0) == 0 || rel.lexically_normal().filename().empty())
      ref::bad_input(path, where + ".path", "a relative file path that must stay inside the solution", ref::brief(src["path"]));
    const fs::path out = fs::path(dir) / rel.lexically_normal();
    fs::create_directories(out.parent_path());
    write_file_atomic(out.string(), {content});
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
      const Problem p = suite_problem(specs[k].round(r), run.worst_dir);
      const ProblemSpec& ps = p.spec;
      const std::vector<std::int64_t> shape = ps.shape();
      SafeTensors st;
      st.tensors["grad_cos"] = Tensor{safetensors_dtype(ps.grad_dtype), shape, p.gc};
      st.tensors["grad_sin"] = Tensor{safetensors_dtype(ps.grad_dtype), shape, p.gs};
      st.tensors["idx_theta"] = make_tensor("F32", shape, p.theta);
      const std::string base = (fs::path(run.work_dir) / (std::to_string(k) + "_" + std::to_string(r))).string();
      write_safetensors(base + ".in.safetensors", st);
      fs::remove(base + ".out.safetensors");
      jobs.push_back({{"name", job_name(specs[k], r)}, {"inputs", base + ".in.safetensors"}, {"output", base + ".out.safetensors"},
                      {"offsets", json(std::vector<int>(ps.offset.begin(), ps.offset.end()))}});
    }
  const std::string jobs_path = (fs::path(run.work_dir) / "jobs.json").string();
  write_file_atomic(jobs_path, {jobs.dump()});

  // 2. The runner, with an overall time limit as a backstop to the per-call one.
  const double budget = (run.call_timeout_s * 3 + 5) * static_cast<double>(jobs.size()) + 60;  // three calls a job
  const std::vector<std::string> argv{run.python, run.runner, s.dir, s.entry_point, s.destination_passing ? "1" : "0", jobs_path,
                                      json{{"cpp", s.cpp}, {"compile_options", json::parse(s.compile_options)}}.dump()};
  std::map<std::string, json> called;
  std::string load_error, buffer;
  auto on_output = [&](const char* d, std::size_t n) {
    buffer.append(d, n);
    for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
      const std::string line = buffer.substr(0, nl + 1);
      buffer.erase(0, nl + 1);
      const json m = json::parse(line, nullptr, false);
      if (run.on_line) run.on_line(line);
      if (!m.is_object()) continue;
      const auto str = [&](const char* k) { return m.contains(k) && m[k].is_string() ? m[k].get<std::string>() : std::string(); };
      if (str("type") == "called") called[str("name")] = m;
      if (str("type") == "load_error") load_error = str("message");
      if (str("type") == "load") load_notes(m, run.notes);
    }
    if (buffer.size() > (1u << 20)) buffer.clear();  // a line that long is not the runner's
  };
  const SpawnResult sr = run_program(argv, (fs::path(run.work_dir) / "runner.stderr").string(), on_output, budget);
  if (!sr.started) load_error = "cannot start " + run.python + ": " + sr.start_error;
  const std::string status = sr.exit_text() + (sr.timed_out ? ", over its time limit" : "");
  if (load_error.empty() && called.size() < jobs.size()) {
    std::ifstream err((fs::path(run.work_dir) / "runner.stderr").string());
    std::string tail((std::istreambuf_iterator<char>(err)), {});
    if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
    load_error = "the Python runner stopped early (" + status + "): " + tail;
  }

  if (run.notes) time_notes(specs, run.rounds, called, *run.notes);
  return judge_outputs(specs, run, jobs, called, load_error);
}

}  // namespace rope2d::verify
