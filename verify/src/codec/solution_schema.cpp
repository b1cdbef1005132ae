// solution.json's rules: its JSON Schema (json_schema.hpp), then the cross-field rules
// of SOL-ExecBench's model (solution.py's validators) and rope2d's caps, then the sibling-file
// filling of its CLI (cli/main.py, _load_solution). One function per layer; see the header.
#include "codec/solution_schema.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "codec/folder_file.hpp"
#include "codec/input.hpp"

namespace rope2d::verify {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::vector<std::string> python_languages = {"pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend"};
const std::vector<std::string> cpp_language_names = {"cutlass", "cudnn", "cublas", "cuda_cpp"};
// solution.py, BuildSpec._validate_languages: the entry file suffixes of C++ languages.
const std::set<std::string> cpp_suffixes = {".cu", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".cuh"};
constexpr char cpp_suffix_text[] = ".cu .cpp .cc .cxx .c .h .hpp .cuh";

// Python's PurePosixPath(p): its parts ('.' and empty ones dropped) and its suffix.
std::vector<std::string> path_parts(const std::string& p) {
  std::vector<std::string> parts;
  for (std::size_t b = 0; b <= p.size();) {
    const std::size_t e = std::min(p.find('/', b), p.size());
    const std::string part = p.substr(b, e - b);
    if (!part.empty() && part != ".") parts.push_back(part);
    b = e + 1;
  }
  return parts;
}

std::string python_suffix(const std::string& p) {
  const std::vector<std::string> parts = path_parts(p);
  if (parts.empty()) return "";
  const std::string& name = parts.back();
  const std::size_t i = name.rfind('.');
  return i != std::string::npos && i > 0 && i + 1 < name.size() ? name.substr(i) : "";
}

bool has(const json& o, const char* k) { return o.is_object() && o.contains(k); }

// Python's str.count("::"): non-overlapping, from the left.
std::size_t count_separators(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = s.find("::"); i != std::string::npos; i = s.find("::", i + 2)) ++n;
  return n;
}

void spec_rules(const json& spec, const std::set<std::string>& raw_paths, bool sources_ok, std::vector<SchemaProblem>& p) {
  bool py = false, cpp = false;
  if (has(spec, "languages") && spec["languages"].is_array())
    for (const json& l : spec["languages"]) {
      if (!l.is_string()) continue;
      py |= std::count(python_languages.begin(), python_languages.end(), l.get<std::string>()) > 0;
      cpp |= std::count(cpp_language_names.begin(), cpp_language_names.end(), l.get<std::string>()) > 0;
    }
  if (py && cpp) p.push_back({"spec.languages", "Python languages or C++ languages, not both", brief(spec["languages"])});
  if (!has(spec, "entry_point") || !spec["entry_point"].is_string() || spec["entry_point"].get<std::string>().empty()) return;
  const std::string entry = spec["entry_point"];
  const std::string found = brief(spec["entry_point"]);
  if (count_separators(entry) != 1) {
    p.push_back({"spec.entry_point", "\"<file_path>::<function_name>\" (\"::\" exactly once)", found});
    return;
  }
  const std::string file = entry.substr(0, entry.find("::"));
  const std::string suffix = python_suffix(file);
  if (cpp && !cpp_suffixes.count(suffix))
    p.push_back({"spec.entry_point", std::string("a C++/CUDA entry file (") + cpp_suffix_text + ") for C++ languages", found});
  if (py && suffix != ".py") p.push_back({"spec.entry_point", "a .py entry file for Python languages", found});
  if (sources_ok && !raw_paths.count(file))
    p.push_back({"spec.entry_point", "a file that sources provides (its path exactly as a source's path)", found});
}

// Whether `path` ends in a file's name: not in "/", "." or "/." (a folder).
bool names_a_file(const std::string& path) {
  const std::string last = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  return !last.empty() && last != ".";
}

// Ours, on the normal paths (the index of the source of each): no path is also a folder of
// another ("a" and "a/b.py"), none is or lies under the verifier's mark of the folder it
// writes them to.
void folder_rules(const std::map<std::string, std::size_t>& normal, const json& sources, std::vector<SchemaProblem>& p) {
  for (const auto& [path, i] : normal) {
    const std::string where = "sources[" + std::to_string(i) + "].path", found = brief(sources[i]["path"]);
    if (path == ".rope2d-sources" || path.rfind(".rope2d-sources/", 0) == 0)
      p.push_back({where, "a path other than .rope2d-sources (the verifier's mark of the folder it writes sources to)", found, true});
    for (std::size_t k = path.find('/'); k != std::string::npos; k = path.find('/', k + 1))
      if (const auto file = normal.find(path.substr(0, k)); file != normal.end())
        p.push_back({"sources[" + std::to_string(file->second) + "].path",
                     "a file no other source has as a folder (\"" + file->first + "\" is a folder of " + where + ")",
                     brief(sources[file->second]["path"]), true});
  }
}

// The sources' paths: the model's rules (no absolute path, no "..", no duplicate) and ours
// (a path names a file, no two paths name the same file, names a file system takes, no file
// that is another's folder, the total size).
bool source_rules(const json& sources, std::set<std::string>& raw_paths, const SolutionLimits& limits,
                  std::vector<SchemaProblem>& p) {
  bool ok = true;
  std::map<std::string, std::size_t> normal_paths;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const json& s = sources[i];
    const std::string where = "sources[" + std::to_string(i) + "]";
    if (has(s, "content") && s["content"].is_string()) bytes += s["content"].get_ref<const std::string&>().size();
    if (!has(s, "path") || !s["path"].is_string() || s["path"].get<std::string>().empty()) {
      ok = false;
      continue;
    }
    const std::string path = s["path"];
    const std::vector<std::string> parts = path_parts(path);
    const std::string found = brief(s["path"]);
    if (path[0] == '/') p.push_back({where + ".path", "a relative path (absolute paths are not allowed)", found});
    else if (std::count(parts.begin(), parts.end(), "..")) p.push_back({where + ".path", "a path without \"..\"", found});
    else if (raw_paths.count(path)) p.push_back({where + ".path", "a path no other source has", found});
    else if (parts.empty() || !names_a_file(path) || path.find('\0') != std::string::npos)
      p.push_back({where + ".path", "a path that names a file", found, true});
    else if (path.size() > 1024 || std::any_of(parts.begin(), parts.end(), [](const std::string& x) { return x.size() > 255; }))
      p.push_back({where + ".path", "a path of at most 1024 bytes, each name at most 255", found, true});
    else {
      std::string normal;
      for (const std::string& x : parts) normal += (normal.empty() ? "" : "/") + x;
      if (!normal_paths.emplace(normal, i).second)
        p.push_back({where + ".path", "a file no other source writes (\"" + normal + "\" is written twice)", found, true});
    }
    raw_paths.insert(path);
  }
  folder_rules(normal_paths, sources, p);
  if (bytes > limits.max_source_bytes)
    p.push_back({"sources", "at most " + std::to_string(limits.max_source_bytes) + " bytes of source in all",
                 std::to_string(bytes) + " bytes", true});
  return ok;
}

bool falsy(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0) ||
         (v.is_string() && v.get_ref<const std::string&>().empty()) || ((v.is_array() || v.is_object()) && v.empty());
}

bool utf8(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

}  // namespace

const std::string& solution_schema_text() { return schema_text(JsonFormat::solution); }

std::vector<SchemaProblem> schema_problems(const json& sol) { return schema_problems(sol, JsonFormat::solution); }

std::vector<SchemaProblem> cross_field_problems(const json& sol, const SolutionLimits& limits) {
  std::vector<SchemaProblem> p;
  std::set<std::string> raw_paths;
  bool sources_ok = false;
  if (has(sol, "sources") && sol["sources"].is_array()) {
    if (sol["sources"].size() > limits.max_sources)
      return {{"sources", "at most " + std::to_string(limits.max_sources) + " sources",
               std::to_string(sol["sources"].size()), true}};
    sources_ok = source_rules(sol["sources"], raw_paths, limits, p) && !sol["sources"].empty();
  }
  if (has(sol, "spec") && sol["spec"].is_object()) spec_rules(sol["spec"], raw_paths, sources_ok, p);
  return p;
}

std::vector<SchemaProblem> fill_sources(json& sol, const SubmitterFolder& folder, const SolutionLimits& limits) {
  std::vector<SchemaProblem> p;
  if (!has(sol, "sources") || !sol["sources"].is_array()) return p;
  if (!folder.opened()) return {{"(file)", "a readable folder holding the solution", folder.path()}};
  std::uint64_t budget = limits.max_source_bytes;
  for (std::size_t i = 0; i < sol["sources"].size(); ++i) {
    json& s = sol["sources"][i];
    if (!s.is_object() || (s.contains("content") && !falsy(s["content"])) || !has(s, "path") || !s["path"].is_string()) continue;
    const std::string rel = s["path"];
    const std::vector<std::string> parts = path_parts(rel);
    // Absolute paths and ".." are the model's refusals: nothing is read for them.
    if (rel.empty() || rel[0] == '/' || std::count(parts.begin(), parts.end(), "..") || rel.find('\0') != std::string::npos)
      continue;
    const std::string where = "sources[" + std::to_string(i) + "].content";
    // Opened beneath the folder's one descriptor and read from the file's (folder_file.hpp).
    FolderFile f = folder.read(rel, budget);
    switch (f.found) {
      case FolderFile::Found::missing: continue;  // stays empty: the model refuses it
      case FolderFile::Found::outside:
        p.push_back({where, "a file inside the solution's folder (" + rel + " leads out of it)", "a link out", true});
        continue;
      case FolderFile::Found::not_regular:
        p.push_back({where, "the text of the regular file " + rel + " beside the solution", "not a regular file"});
        continue;
      case FolderFile::Found::too_big:
        p.push_back({where, "at most " + std::to_string(limits.max_source_bytes) + " bytes of source in all",
                     rel + " of " + std::to_string(f.size) + " bytes", true});
        continue;
      case FolderFile::Found::unreadable:
        p.push_back({where, "the text of the readable file " + rel + " beside the solution", f.error});
        continue;
      case FolderFile::Found::file: break;
    }
    if (!utf8(f.text)) {
      p.push_back({where, "UTF-8 text in " + rel, "bytes that are not UTF-8"});
      continue;
    }
    budget -= f.text.size();
    s["content"] = std::move(f.text);
  }
  return p;
}

std::vector<SchemaProblem> solution_problems(json& sol, const std::string& dir, const SolutionLimits& limits) {
  if (dir.empty()) return solution_problems(sol, nullptr, limits);
  const SubmitterFolder folder(dir);
  return solution_problems(sol, &folder, limits);
}

std::vector<SchemaProblem> solution_problems(json& sol, const SubmitterFolder* folder, const SolutionLimits& limits) {
  if (has(sol, "sources") && sol["sources"].is_array() && sol["sources"].size() > limits.max_sources)
    return cross_field_problems(sol, limits);  // the cap alone, before any walk over the list
  std::vector<SchemaProblem> p;
  if (folder) p = fill_sources(sol, *folder, limits);
  // A content left empty because its file was not read is said once, by why it was not read.
  std::set<std::string> said;
  for (const SchemaProblem& x : p) said.insert(x.field);
  for (auto layer : {schema_problems(sol), cross_field_problems(sol, limits)})
    for (SchemaProblem& x : layer)
      if (!said.count(x.field)) p.push_back(std::move(x));
  return p;
}

std::vector<SchemaProblem> check_solution_file(const std::string& path, json& sol, const SolutionLimits& limits, std::string* text) {
  return check_solution_file(SubmitterFolder(fs::path(path).parent_path().string()), path, sol, limits, text);
}

std::vector<SchemaProblem> check_solution_file(const SubmitterFolder& folder, const std::string& path, json& sol,
                                               const SolutionLimits& limits, std::string* text) {
  // Read whole, then filled from sibling files before the schema speaks (the upstream CLI's
  // order), every problem listed: the one reader's checks without its first-problem throw.
  FolderFile f = folder.read(fs::path(path).filename().string(), max_json_file_bytes);
  if (f.found == FolderFile::Found::outside)
    bad_input(path, "the file", "a solution inside its folder (copy it there, not a link out of it)", "a link out of it");
  if (f.found != FolderFile::Found::file) {
    read_file(path);  // its words for a file that is missing, not regular, too big or unreadable
    bad_input(path, "the file", "a readable regular file", "one that changed while it was read");
  }
  sol = parse_json(f.text, path);
  if (text) *text = std::move(f.text);
  return solution_problems(sol, &folder, limits);
}

bool destination_passing(const json& spec) {
  if (!has(spec, "destination_passing_style")) return true;
  const json& v = spec["destination_passing_style"];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  std::string s = v.is_string() ? v.get<std::string>() : "";
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s == "true" || s == "yes" || s == "on" || s == "t" || s == "y" || s == "1";
}

bool cpp_languages(const json& spec) {
  if (!has(spec, "languages") || !spec["languages"].is_array()) return false;
  return std::any_of(spec["languages"].begin(), spec["languages"].end(), [](const json& l) {
    return l.is_string() && std::count(cpp_language_names.begin(), cpp_language_names.end(), l.get<std::string>());
  });
}

}  // namespace rope2d::verify

namespace rope2d::verify {
const std::vector<std::string>& language_family(bool cpp) { return cpp ? cpp_language_names : python_languages; }
}  // namespace rope2d::verify
