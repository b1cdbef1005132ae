// Verifying SOL-ExecBench solutions through the Python runner: the solution read with the rules
// of solution_schema.hpp, its sources written out, every call judged from the runner's outputs.
#include "rope2d/verify/solution.hpp"
#include "rope2d/verify/worst.hpp"

#include <array>
#include <cstdio>
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
#include "rope2d/verify/solution_schema.hpp"
#include "rope2d/verify/spawn.hpp"
#include "rope2d/verify/validate.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {


std::string job_name(const ProblemSpec& s, int round) { return s.name() + "#" + std::to_string(round); }

// compile_options for the runner, and the warning when the official default (fast math) applies.
void read_compile_options(const json& spec, Solution& s) {
  const json opts = spec.contains("compile_options") && spec["compile_options"].is_object() ? spec["compile_options"] : json::object();
  s.compile_options = opts.dump();
  if (s.cpp && !opts.contains("cuda_cflags"))
    s.warnings.push_back("compile_options.cuda_cflags not given: built with SOL-ExecBench's default -O3 --use_fast_math "
                         "(__sinf/__cosf: inaccurate beyond a few radians)");
}

// 3. Judge every output: the runner's record of each call is its integrity, its file the
//    outputs. A set stops at its first call without outputs.
std::vector<SetResult> judge_outputs(const std::vector<ProblemSpec>& specs, const SolutionRun& run, const json& jobs,
                                     const std::map<std::string, json>& called, const std::string& load_error,
                                     Cause load_cause) {
  Judge judge(run.gate, run.rounds);
  judge.stop_set_on_error = true;
  judge.subnormals = run.subnormals;
  judge.sources = suite_sources(run.worst_dir);
  std::vector<SetResult> results;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ProblemSpec& spec = specs[k];
    const Entry entry{"", [&](const Problem& p, int r) {
      CallResult c;
      const auto it = called.find(job_name(spec, r));
      if (it == called.end()) {
        c.error = load_error.empty() ? "not run" : load_error;
        c.error_cause = load_error.empty() ? Cause::runtime : load_cause;
        return c;
      }
      const json& m = it->second;
      if (m.contains("error") && !m["error"].is_null()) {
        c.error = m["error"].is_string() ? m["error"].get<std::string>() : ref::brief(m["error"]);
        return c;
      }
      const std::vector<std::int64_t> want = solution_shape(spec, run.head_dim);
      const json shape = m.contains("shape") ? m["shape"] : json();
      const json dtype = m.contains("dtype") ? m["dtype"] : json();
      if (shape != json(want) || dtype != "float32") {
        c.error = "output shape " + ref::brief(shape) + " dtype " + ref::brief(dtype) + ", expected " + json(want).dump() + " float32";
        c.error_cause = shape != json(want) ? Cause::shape : Cause::dtype;  // the shape first, as SOL-ExecBench checks it
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
      if (static_cast<std::int64_t>(c.out.size()) != p.n()) {
        c.error = "output holds " + std::to_string(c.out.size()) + " elements, expected " + std::to_string(p.n());
        c.error_cause = Cause::shape;
      }
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
  json j;
  const std::vector<SchemaProblem> problems = check_solution_file(path, j);
  if (!problems.empty()) {
    std::string msg = problems[0].line(path);
    for (std::size_t i = 1; i < std::min<std::size_t>(problems.size(), 8); ++i) msg += "\n" + problems[i].line(path);
    if (problems.size() > 8) msg += "\n(" + std::to_string(problems.size() - 8) + " more)";
    throw std::invalid_argument(msg);
  }
  const json& spec = j["spec"];
  Solution s;
  s.path = path;
  s.sha256 = sha256_file(path);
  s.name = j["name"].get<std::string>();
  s.definition = j["definition"].get<std::string>();
  s.entry_point = spec["entry_point"].get<std::string>();
  for (const json& l : spec["languages"]) s.languages.push_back(l.get<std::string>());
  s.cpp = cpp_languages(spec);
  s.binding = "torch";  // absent or null: torch, the one binding there is
  s.destination_passing = destination_passing(spec);
  read_compile_options(spec, s);
  s.dir = dir;
  make_output_folder(dir);
  for (const json& src : j["sources"]) {
    const fs::path out = fs::path(dir) / fs::path(src["path"].get<std::string>()).lexically_normal();
    fs::create_directories(out.parent_path());
    write_file_atomic(out.string(), {src["content"].get<std::string>()});
    s.sources.push_back(fs::relative(out, dir).string());
  }
  return s;
}

namespace {

// definition.json's grad dtype (grad_cos and grad_sin alike).
std::string definition_grad(const json& d, const std::string& where) {
  static const std::map<std::string, std::string> names = {{"bfloat16", "bf16"}, {"float16", "fp16"}, {"float32", "fp32"}};
  std::string grad;
  for (const char* input : {"grad_cos", "grad_sin"}) {
    const std::string field = std::string("inputs.") + input + ".dtype";
    const json* v = d.contains("inputs") && d["inputs"].is_object() && d["inputs"].contains(input) && d["inputs"][input].is_object() &&
                            d["inputs"][input].contains("dtype")
                        ? &d["inputs"][input]["dtype"]
                        : nullptr;
    if (!v || !v->is_string() || !names.count(v->get<std::string>()))
      ref::bad_input(where, field, "\"bfloat16\", \"float16\" or \"float32\"", v ? ref::brief(*v) : "nothing");
    if (!grad.empty() && grad != names.at(v->get<std::string>()))
      ref::bad_input(where, field, "the dtype of inputs.grad_cos (" + grad + ")", ref::brief(*v));
    grad = names.at(v->get<std::string>());
  }
  return grad;
}

}  // namespace

DefinitionScope definition_scope(const Solution& s) {
  // SOL-ExecBench's definition of this problem (090, upstream 8d2237d): bfloat16 grads, head_dim 128.
  static const std::map<std::string, DefinitionScope> known = {{"090_batched_2d_rope_position_encoding_backward", {{"bf16"}, 128}}};
  const fs::path def = fs::path(s.path).parent_path() / "definition.json";
  std::error_code ec;
  if (fs::exists(def, ec)) {
    const std::string where = def.string();
    const json d = ref::read_json_file(where);
    if (d.is_object() && d.contains("name") && d["name"] == s.definition) {
      DefinitionScope scope{{definition_grad(d, where)}, 0};
      const json axis = d.contains("axes") && d["axes"].is_object() && d["axes"].contains("head_dim") ? d["axes"]["head_dim"] : json();
      if (!axis.is_object() || axis.value("type", "") != "const" || !axis.contains("value") || !axis["value"].is_number_integer() ||
          axis["value"].get<std::int64_t>() < 1 || axis["value"].get<std::int64_t>() > (1 << 20))
        ref::bad_input(where, "axes.head_dim", "{\"type\": \"const\", \"value\": 1 to 2^20}", axis.is_null() ? "nothing" : ref::brief(axis));
      scope.head_dim = axis["value"].get<std::int64_t>();
      return scope;
    }
  }
  const auto it = known.find(s.definition);
  return it == known.end() ? DefinitionScope{} : it->second;
}

std::vector<std::int64_t> solution_shape(const ProblemSpec& p, std::int64_t head_dim) {
  if (head_dim > 0 && p.elements >= 0 && p.elements % head_dim == 0) return {1, p.elements / head_dim, head_dim};
  return p.shape();
}

bool on_axes(const ProblemSpec& p, std::int64_t head_dim) {
  return head_dim <= 0 || (p.elements >= 0 ? p.elements % head_dim == 0 : p.head_dim == head_dim);
}

bool within_definition(const ProblemSpec& p, const std::vector<std::string>& grad_dtypes, std::int64_t head_dim) {
  return on_axes(p, head_dim) && (grad_dtypes.empty() || std::find(grad_dtypes.begin(), grad_dtypes.end(),
                                                                   std::string(ref::name(p.grad_dtype))) != grad_dtypes.end());
}

ByteCompile byte_compile(const Solution& s, const std::string& python, const std::string& work_dir) {
  ByteCompile b;
  std::vector<std::string> argv{python, "-c",
                                "import sys\nfor f in sys.argv[1:]:\n    compile(open(f, 'rb').read(), f, 'exec', dont_inherit=True)\n"};
  for (const std::string& f : s.sources)
    if (f.size() > 3 && f.compare(f.size() - 3, 3, ".py") == 0) argv.push_back((fs::path(s.dir) / f).string()), ++b.files;
  if (b.files == 0) return b;
  make_output_folder(work_dir);
  const std::string err = (fs::path(work_dir) / "byte_compile.stderr").string();
  require_output_file(err);  // opened for the child's stderr: never through a link or into a FIFO
  const SpawnResult r = run_program(argv, err, [](const char*, std::size_t) {}, 120);
  if (!r.started) {
    b.error = "cannot start " + python + ": " + r.start_error;
    return b;
  }
  b.ran = true;
  if (r.code() != 0) {
    b.error = r.exit_text() + (r.timed_out ? ", over its time limit" : "");
    try {
      std::string tail = ref::read_file(err, 1 << 20);
      if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
      b.error += ": " + tail;
    } catch (const std::exception&) {
    }
  }
  return b;
}

std::vector<SetResult> run_solution(const Solution& s, const std::vector<ProblemSpec>& specs, const SolutionRun& run) {
  make_output_folder(run.work_dir);
  require_output_file((fs::path(run.work_dir) / "runner.stderr").string());  // the child's stderr, opened for writing
  // 1. Inputs of every call, as the benchmark shapes them.
  json jobs = json::array();
  for (std::size_t k = 0; k < specs.size(); ++k)
    for (int r = 0; r < run.rounds; ++r) {
      const Problem p = suite_problem(specs[k].round(r), run.worst_dir);
      const ProblemSpec& ps = p.spec;
      const std::vector<std::int64_t> shape = solution_shape(ps, run.head_dim);
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
  Cause load_cause = Cause::runtime;  // a solution that did not build (the runner's "kind": "build"): build
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
      if (str("type") == "load_error") {
        load_error = str("message");
        load_cause = str("kind") == "build" ? Cause::build : Cause::runtime;
      }
      if (str("type") == "load") load_notes(m, run.notes);
    }
    if (buffer.size() > (1u << 20)) buffer.clear();  // a line that long is not the runner's
  };
  std::string tail;
  SpawnResult sr;
  if (run.launch) {
    sr = run.launch(argv, budget, on_output, &tail);
  } else {
    sr = run_program(argv, (fs::path(run.work_dir) / "runner.stderr").string(), on_output, budget);
    std::ifstream err((fs::path(run.work_dir) / "runner.stderr").string());
    tail.assign(std::istreambuf_iterator<char>(err), {});
  }
  if (!sr.started) load_error = "cannot start " + run.python + ": " + sr.start_error;
  const std::string status = sr.exit_text() + (sr.timed_out ? ", over its time limit" : "");
  if (load_error.empty() && called.size() < jobs.size()) {
    if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
    load_error = "the Python runner stopped early (" + status + "): " + tail;
    if (sr.timed_out) load_cause = Cause::timeout;
  }

  if (run.notes) time_notes(specs, run.rounds, called, *run.notes);
  return judge_outputs(specs, run, jobs, called, load_error, load_cause);
}

namespace {

std::string text_field(const json& m, const char* key) {
  return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : std::string();
}

}  // namespace

void read_host_note(const std::string& text, HostStart& into) {
  const json m = json::parse(text, nullptr, false);
  if (!m.is_object()) return;
  const std::string type = text_field(m, "type");
  if (type == "load_error") {
    into.load_error = text_field(m, "message");
    if (into.load_error.empty()) into.load_error = "the solution could not be loaded (the host gave no message)";
    into.load_cause = text_field(m, "kind") == "build" ? Cause::build : Cause::runtime;
  } else if (type == "load") {
    load_notes(m, &into.notes);
  } else if (type == "build" && !text_field(m, "how").empty()) {
    into.notes.push_back("built " + text_field(m, "how"));
  }
}

double fold_call_note(const std::string& text, CallResult& c) {
  const json m = json::parse(text, nullptr, false);
  if (!m.is_object()) return 0;
  if (const std::string e = text_field(m, "error"); !e.empty()) {
    c.error = e;
    const std::string kind = text_field(m, "kind");
    c.error_cause = kind == "shape" ? Cause::shape : kind == "dtype" ? Cause::dtype : Cause::runtime;
  }
  if (m.contains("findings") && m["findings"].is_array())
    for (const json& f : m["findings"]) {
      const std::string w = f.is_string() ? f.get<std::string>() : ref::brief(f);
      if (std::find(c.findings.begin(), c.findings.end(), w) == c.findings.end()) c.findings.push_back(w);
    }
  return m.contains("wall_s") && m["wall_s"].is_number() ? std::max(0.0, m["wall_s"].get<double>()) : 0.0;
}

}  // namespace rope2d::verify
