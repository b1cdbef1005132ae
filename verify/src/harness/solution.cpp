// SOL-ExecBench solutions: the solution read with the rules of solution_schema.hpp, its sources
// written out, the shapes it is called with, and the Python host's notes (host_notes.hpp's
// events) as the judge folds them in (the calls themselves: harness/testbed/served_solution.cpp).
#include "harness/solution.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "codec/input.hpp"
#include "codec/folder_file.hpp"
#include "codec/json_schema.hpp"
#include "codec/plain_text.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "codec/solution_schema.hpp"
#include "harness/spawn.hpp"
#include "codec/validate.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// compile_options for the runner, and the warning when the official default (fast math) applies.
void read_compile_options(const json& spec, Solution& s) {
  s.compile_options = spec.contains("compile_options") && spec["compile_options"].is_object() ? spec["compile_options"] : json::object();
  if (s.cpp && !s.compile_options.contains("cuda_cflags"))
    s.warnings.push_back("compile_options.cuda_cflags not given: built with SOL-ExecBench's default -O3 --use_fast_math "
                         "(__sinf/__cosf: inaccurate beyond a few radians)");
}

// What importing the solution changed, in words (a replaced torch attribute also fails every
// call: the runner lists it among each call's findings).
void load_notes(const harness::wire::Loaded& l, std::vector<std::string>& notes) {
  const auto list = [&](const std::vector<std::string>& items, const std::string& what) {
    if (items.empty()) return;
    std::string s = what;
    for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : " ") + items[i];
    notes.push_back(s);
  };
  list(l.state, "importing the solution changed torch's global state:");
  list(l.patched, "importing the solution replaced torch attributes:");
  list(l.threads, "importing the solution left threads running:");
}

// solution.json read once and checked (invalid_argument, a line per broken rule); its fields.
Solution parse_solution(const std::string& path, json& j, const SubmitterFolder* opened) {
  std::string text;
  // Opened once (or by the caller): definition.json is read beneath it too.
  SubmitterFolder folder = opened ? *opened : SubmitterFolder(fs::path(path).parent_path().string());
  const std::vector<SchemaProblem> problems = check_solution_file(folder, path, j, {}, &text);
  if (!problems.empty()) {
    std::string msg = problems[0].line(path);
    for (std::size_t i = 1; i < std::min<std::size_t>(problems.size(), 8); ++i) msg += "\n" + problems[i].line(path);
    if (problems.size() > 8) msg += "\n(" + std::to_string(problems.size() - 8) + " more)";
    throw std::invalid_argument(msg);
  }
  const json& spec = j["spec"];
  Solution s;
  s.path = path;
  s.folder = std::move(folder);
  s.sha256 = sha256_bytes(text);
  s.name = j["name"].get<std::string>();
  s.definition = j["definition"].get<std::string>();
  s.entry_point = spec["entry_point"].get<std::string>();
  for (const json& l : spec["languages"]) s.languages.push_back(l.get<std::string>());
  s.cpp = cpp_languages(spec);
  s.binding = "torch";  // absent or null: torch, the one binding there is
  s.destination_passing = destination_passing(spec);
  read_compile_options(spec, s);
  return s;
}

}  // namespace

void empty_sources_folder(const std::string& dir) {
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(fs::path(dir) / ".rope2d-sources", ec))) fs::remove_all(dir, ec);
  else if (fs::is_directory(fs::symlink_status(dir, ec)) && !fs::is_empty(dir, ec))
    bad_input(dir, "the folder", "a folder for the solution's sources that rope2d made, or none", "a folder of other files");
}

Solution read_solution(const std::string& path, const SubmitterFolder* folder) {
  json j;
  return parse_solution(path, j, folder);
}

Solution prepare_solution(const std::string& path, const std::string& dir, const SubmitterFolder* folder) {
  json j;
  Solution s = parse_solution(path, j, folder);
  s.dir = dir;
  // Emptying the folder would remove the solution being read (solution.json kept among its sources).
  if (lies_within(path, dir))
    bad_input(dir, "the folder", "a folder for the solution's sources apart from " + plain_line(path) + " (another --out)",
              "the folder that holds it");
  empty_sources_folder(dir);
  make_output_folder(dir);
  write_file_atomic((fs::path(dir) / ".rope2d-sources").string(), {"the sources of the solution last verified into this report folder\n"});
  for (const json& src : j["sources"]) {
    const fs::path out = fs::path(dir) / fs::path(src["path"].get<std::string>()).lexically_normal();
    fs::create_directories(out.parent_path());
    write_file_atomic(out.string(), {src["content"].get<std::string>()});
    s.sources.push_back(fs::relative(out, dir).string());
  }
  return s;
}

namespace {

// definition.json's grad dtype (grad_cos and grad_sin alike). The schema allows "bfloat16",
// "float16" and "float32" only, which parse_dtype reads as the aliases of bf16, fp16 and fp32.
ref::Dtype definition_grad(const json& d, const std::string& where) {
  const json &cos_dtype = d["inputs"]["grad_cos"]["dtype"], &sin_dtype = d["inputs"]["grad_sin"]["dtype"];
  const std::optional<ref::Dtype> grad = ref::parse_dtype(cos_dtype.get<std::string>());
  // Not reached: the schema lets only those three through (its words, should another slip past).
  if (!grad) bad_input(where, "inputs.grad_cos.dtype", "\"bfloat16\", \"float16\" or \"float32\"", brief(cos_dtype));
  if (ref::parse_dtype(sin_dtype.get<std::string>()) != grad)
    bad_input(where, "inputs.grad_sin.dtype", "the dtype of inputs.grad_cos (" + std::string(ref::name(*grad)) + ")",
              brief(sin_dtype));
  return *grad;
}

}  // namespace

DefinitionScope definition_scope(const Solution& s) {
  // SOL-ExecBench's definition of this problem (090, upstream 8d2237d): bfloat16 grads, head_dim 128.
  static const std::map<std::string, DefinitionScope> known = {
      {"090_batched_2d_rope_position_encoding_backward", {{ref::Dtype::bf16}, 128}}};
  const fs::path folder = fs::path(s.path).parent_path();
  const fs::path def = folder / "definition.json";
  const std::string where = def.string();
  // The submission's folder is the submitter's: a link out of it would have the verifier read,
  // and quote in its errors, a file the submitter cannot read. Opened beneath the descriptor
  // solution.json was read from, and read from its own: neither a file swapped for a link after
  // a check nor the folder swapped after solution.json was read leads out of it.
  const FolderFile f = (s.folder ? *s.folder : SubmitterFolder(folder.string())).read("definition.json", max_json_file_bytes);
  switch (f.found) {
    case FolderFile::Found::missing: break;
    case FolderFile::Found::outside: {
      std::error_code ec;  // for the message only: what was read is decided above
      bad_input(where, "the file", "a definition inside the solution's folder (copy it there, not a link out of it)",
                "a link to " + plain_line(fs::weakly_canonical(def, ec).string()));
    }
    case FolderFile::Found::not_regular: bad_input(where, "the file", "a regular file", "not a regular file");
    case FolderFile::Found::too_big:
      bad_input(where, "the file", "at most " + std::to_string(max_json_file_bytes) + " bytes", std::to_string(f.size));
    case FolderFile::Found::unreadable: bad_input(where, "the file", "a readable file", f.error);
    case FolderFile::Found::file: {
      // verify/schema/definition.schema.json: any definition's shape, then what rope2d reads of its own.
      const json d = read_json_text(f.text, where, JsonFormat::definition);
      if (d["name"] != s.definition) break;
      check_json(d, JsonFormat::definition, where, "rope2d_backward");
      const DefinitionScope found{{definition_grad(d, where)}, d["axes"]["head_dim"]["value"].get<std::int64_t>()};
      // The file is the submitter's and chooses which sets are judged: for a definition the
      // verifier knows, it may only agree (a wider head_dim or another dtype would leave the
      // hard sets out of the verdict).
      if (const auto it = known.find(s.definition); it != known.end()) {
        if (found.grad_dtypes != it->second.grad_dtypes)
          bad_input(where, "inputs.grad_cos.dtype", std::string(ref::name(it->second.grad_dtypes.front())) + " (" + s.definition + " as published)",
                    std::string(ref::name(found.grad_dtypes.front())));
        if (found.head_dim != it->second.head_dim)
          bad_input(where, "axes.head_dim.value", std::to_string(it->second.head_dim) + " (" + s.definition + " as published)",
                    std::to_string(found.head_dim));
      }
      return found;
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

bool within_definition(const ProblemSpec& p, const std::vector<ref::Dtype>& grad_dtypes, std::int64_t head_dim) {
  return on_axes(p, head_dim) && (grad_dtypes.empty() || std::ranges::find(grad_dtypes, p.grad_dtype) != grad_dtypes.end());
}

void read_host_note(const harness::wire::HostEvent& e, HostStart& into) {
  namespace wire = harness::wire;
  if (const auto* f = std::get_if<wire::LoadFailed>(&e)) {
    into.load_error = f->message.empty() ? "the solution could not be loaded (the host gave no message)" : f->message;
    into.load_cause = f->cause;
  } else if (const auto* l = std::get_if<wire::Loaded>(&e)) {
    load_notes(*l, into.notes);
  } else if (const auto* b = std::get_if<wire::Built>(&e); b && !b->how.empty()) {
    into.notes.push_back("built " + b->how);
  } else if (const auto* c = std::get_if<wire::NoteCut>(&e); c && c->load_error) {
    // A load error whose words (a long compiler log, say) the host cut to its kind: its cause stays.
    into.load_error = std::string(c->cause == Cause::build ? "the solution did not build" : "the solution could not be loaded") +
                      " (the host's message was longer than a note may be, and was cut)";
    into.load_cause = c->cause;
  }
}

double fold_call_note(const harness::wire::HostEvent& e, CallResult& c) {
  namespace wire = harness::wire;
  if (const auto* f = std::get_if<wire::CallFailed>(&e); f && !f->error.empty()) {
    c.error = f->error;
    c.error_cause = f->cause;
  } else if (const auto* d = std::get_if<wire::CallEnded>(&e)) {
    for (const std::string& w : d->findings)
      if (std::find(c.findings.begin(), c.findings.end(), w) == c.findings.end()) c.findings.push_back(w);
    return d->wall_s;
  }
  return 0;
}

}  // namespace rope2d::verify
