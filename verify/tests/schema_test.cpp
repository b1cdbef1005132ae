// The solution.json rules (solution_schema.hpp) case by case: every case of
// tests/solution_cases/cases.json (one accepted and one refused per rule) classified and its
// field named; the schema layer and the cross-field layer never both speak for one field and
// use the same language names; path-only sources filled from beside the file, inside only;
// the problem a solution declares (its definition's grad dtypes), the rest judged apart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fcntl.h>
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "codec/input.hpp"
#include "harness/solution.hpp"
#include "codec/solution_schema.hpp"
#include "rope2d/verify/products/report_files.hpp"

using namespace rope2d;
using namespace rope2d::verify;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const json& corpus() {
  static const std::string path = std::string(ROPE2D_TEST_DIR) + "/solution_cases/cases.json";
  static const json c = verify::parse_json(verify::read_file(path), path);
  return c;
}

// A case's document: its base with the edits applied.
json build(const json& c) {
  json doc = corpus()["bases"][c["base"].get<std::string>()];
  if (c.contains("set"))
    for (const auto& [ptr, v] : c["set"].items()) doc[json::json_pointer(ptr)] = v;
  if (c.contains("remove"))
    for (const auto& ptr : c["remove"]) {
      const json::json_pointer p(ptr.get<std::string>());
      doc[p.parent_pointer()].erase(p.back());
    }
  if (c.contains("repeat_content")) {
    const std::string one = doc["sources"][0]["content"];
    std::string all;
    for (int i = 0; i < c["repeat_content"].get<int>(); ++i) all += one;
    doc["sources"][0]["content"] = all;
  }
  for (int i = 0; i < c.value("extra_sources", 0); ++i)
    doc["sources"].push_back({{"path", "extra_" + std::to_string(i) + ".py"}, {"content", "x = 1\n"}});
  return doc;
}

std::string classify(const std::vector<SchemaProblem>& p) {
  if (p.empty()) return "accepted";
  return std::all_of(p.begin(), p.end(), [](const SchemaProblem& x) { return x.ours; }) ? "ours" : "refused";
}

std::string dump(const std::vector<SchemaProblem>& p) {
  std::string s;
  for (const auto& x : p) s += "\n  " + x.line("case");
  return s;
}

std::string tmp(const std::string& name) {
  return (fs::temp_directory_path() / ("rope2d_schema_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A solution named `definition` whose solution.json would sit in `dir`.
Solution solution_of(const std::string& definition, const fs::path& dir) {
  Solution s;
  s.path = (dir / "solution.json").string();
  s.definition = definition;
  return s;
}

// The committed definition.json renamed, with grads of `dtype` ("float32", ...).
json definition_of(const std::string& name, const char* dtype) {
  json def = read_json_file(std::string(ROPE2D_TEST_DIR) + "/../../data/golden-smoke/solexecbench/definition.json", JsonFormat::definition);
  def["name"] = name;
  def["inputs"]["grad_cos"]["dtype"] = def["inputs"]["grad_sin"]["dtype"] = dtype;
  return def;
}

// Exchanges two names for ever (renameat2 RENAME_EXCHANGE: each always exists) until destroyed:
// a file the verifier checks and then opens by name is, now and then, the other one.
class Swapper {
 public:
  Swapper(const fs::path& a, const fs::path& b)
      : thread_([this, a, b] {
          while (!stop_)
            if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) != 0) return void(failed_ = true);
        }) {}
  ~Swapper() {
    stop_ = true;
    thread_.join();
  }
  bool failed() const { return failed_; }

 private:
  std::atomic<bool> stop_{false}, failed_{false};
  std::thread thread_;
};

}  // namespace

TEST(SolutionSchema, EveryCaseIsClassifiedAndNamesItsField) {
  std::set<std::string> kinds;
  for (const json& c : corpus()["cases"]) {
    json doc = build(c);
    const std::vector<SchemaProblem> p = solution_problems(doc, "");
    const std::string expect = c["expect"];
    kinds.insert(expect);
    EXPECT_EQ(classify(p), expect) << c["name"] << dump(p);
    if (c.contains("field")) {
      EXPECT_TRUE(std::any_of(p.begin(), p.end(), [&](const SchemaProblem& x) { return x.field == c["field"]; }))
          << c["name"] << ": no problem names " << c["field"] << dump(p);
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"accepted", "refused", "ours"}));
  EXPECT_GE(corpus()["cases"].size(), 80u);
}

TEST(SolutionSchema, TheTwoLayersNeverSpeakForTheSameField) {
  // A rule written in both the schema and the C++ function would be two copies of it.
  for (const json& c : corpus()["cases"]) {
    const json doc = build(c);
    std::set<std::string> schema_fields;
    for (const auto& x : schema_problems(doc)) schema_fields.insert(x.field);
    for (const auto& x : cross_field_problems(doc))
      EXPECT_FALSE(schema_fields.count(x.field)) << c["name"] << ": " << x.field << " refused by both layers";
  }
}

TEST(SolutionSchema, LanguageFamiliesAreTheSchemasLanguages) {
  const json schema = json::parse(solution_schema_text());
  std::set<std::string> in_schema, in_rules;
  for (const auto& l : schema["properties"]["spec"]["properties"]["languages"]["items"]["enum"]) in_schema.insert(l);
  for (bool cpp : {false, true})
    for (const auto& l : language_family(cpp)) EXPECT_TRUE(in_rules.insert(l).second) << l << " in both families";
  EXPECT_EQ(in_schema, in_rules);
}

TEST(SolutionSchema, EveryConstraintSaysWhatItExpects) {
  // Each schema node that constrains a value carries the text a refusal prints.
  std::function<void(const json&, const std::string&)> walk = [&](const json& n, const std::string& at) {
    if (n.contains("type") || n.contains("enum")) {
      EXPECT_TRUE(n.contains("x-expected")) << at;
    }
    if (n.contains("properties"))
      for (const auto& [k, v] : n["properties"].items()) walk(v, at + "." + k);
    if (n.contains("items")) walk(n["items"], at + "[]");
  };
  walk(json::parse(solution_schema_text()), "(top)");
}

TEST(SolutionSchema, RecordsTheUpstreamCommit) {
  EXPECT_NE(solution_schema_text().find(solexecbench_commit), std::string::npos);
  EXPECT_EQ(std::string(solexecbench_commit).size(), 40u);
}

TEST(SolutionSchema, ThreeHundredThousandEmptySourcesAreRefusedQuickly) {
  json doc = corpus()["bases"]["triton"];
  doc["sources"] = json::array();
  for (int i = 0; i < 300000; ++i) doc["sources"].push_back({{"path", ""}, {"content", ""}});
  const std::string path = tmp("many.json");
  std::ofstream(path) << doc.dump();
  const auto t0 = std::chrono::steady_clock::now();
  json read;
  const std::vector<SchemaProblem> p = check_solution_file(path, read);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(p.size(), 1u) << dump(p);
  EXPECT_TRUE(p[0].ours);
  EXPECT_EQ(p[0].field, "sources");
  EXPECT_NE(p[0].line(path).find("rope2d's own"), std::string::npos);
  EXPECT_LT(s, 5.0);
  fs::remove(path);
}

TEST(SolutionSchema, PathOnlySourcesAreFilledFromBesideTheFile) {
  const fs::path dir = tmp("fill"), outside = tmp("outside");
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  fs::create_directories(outside);
  std::ofstream(dir / "kernel.py") << "def run(a, b, c):\n    return a\n";
  std::ofstream(dir / "sub" / "helper.py") << "X = 1\n";
  std::ofstream(outside / "secret.py") << "S = 1\n";
  fs::create_symlink(outside / "secret.py", dir / "link.py");
  fs::create_directories(dir / "folder.py");
  auto check = [&](const json& sources) {
    json doc = corpus()["bases"]["triton"];
    doc["sources"] = sources;
    const std::string path = (dir / "solution.json").string();
    std::ofstream(path) << doc.dump();
    json read;
    std::vector<SchemaProblem> p = check_solution_file(path, read);
    return std::make_pair(p, read);
  };
  // content absent, empty or null: read from the file (the official CLI's rule).
  auto [ok, filled] = check(json::array({{{"path", "kernel.py"}}, {{"path", "sub/helper.py"}, {"content", ""}},
                                         {{"path", "kernel2.py"}, {"content", "y = 2\n"}}}));
  EXPECT_TRUE(ok.empty()) << dump(ok);
  EXPECT_EQ(filled["sources"][0]["content"], "def run(a, b, c):\n    return a\n");
  EXPECT_EQ(filled["sources"][1]["content"], "X = 1\n");
  auto [null_content, _n] = check(json::array({{{"path", "kernel.py"}, {"content", nullptr}}}));
  EXPECT_TRUE(null_content.empty()) << dump(null_content);
  // No such file: left empty, refused as the model refuses it.
  auto [missing, _m] = check(json::array({{{"path", "kernel.py"}}, {{"path", "nothere.py"}}}));
  ASSERT_EQ(classify(missing), "refused") << dump(missing);
  EXPECT_EQ(missing[0].field, "sources[1].content");
  // A link out of the folder is not read (ours: the official CLI would read it).
  auto [link, _l] = check(json::array({{{"path", "kernel.py"}}, {{"path", "link.py"}}}));
  EXPECT_NE(dump(link).find("leads out of it"), std::string::npos) << dump(link);
  auto [folder, _f] = check(json::array({{{"path", "kernel.py"}}, {{"path", "folder.py"}}}));
  EXPECT_NE(dump(folder).find("not a regular file"), std::string::npos) << dump(folder);
  // ".." is never followed, whatever lies there.
  auto [up, _u] = check(json::array({{{"path", "kernel.py"}}, {{"path", "../" + outside.filename().string() + "/secret.py"}}}));
  EXPECT_EQ(classify(up), "refused");
  EXPECT_EQ(dump(up).find("S = 1"), std::string::npos);
  fs::remove_all(dir);
  fs::remove_all(outside);
}

// A source file swapped, between the verifier's looks, for a link out of the folder: never
// read (its text would be written out for the box, and quoted in errors).
TEST(SolutionSchema, ASourceSwappedForALinkOutIsNeverRead) {
  const fs::path dir = tmp("fill-swap"), outside = tmp("fill-swap-out");
  fs::create_directories(dir);
  fs::create_directories(outside);
  std::ofstream(dir / "kernel.py") << "def run(a, b, c):\n    return a\n";
  std::ofstream(outside / "secret.py") << "S = 1\n";
  fs::create_symlink(outside / "secret.py", dir / "swap");
  json doc = corpus()["bases"]["triton"];
  doc["sources"] = json::array({{{"path", "kernel.py"}}});
  const std::string path = (dir / "solution.json").string();
  std::ofstream(path) << doc.dump();
  int inside = 0, refused = 0, escaped = 0;
  {
    const Swapper swap(dir / "kernel.py", dir / "swap");
    for (int i = 0; i < 4000 && !escaped; ++i) {
      json read;
      const std::vector<SchemaProblem> p = check_solution_file(path, read);
      const std::string text = read["sources"][0].value("content", "");
      if (text.find("S = 1") != std::string::npos) ++escaped;
      else if (p.empty() && text.find("def run") == 0) ++inside;
      else if (dump(p).find("leads out of it") != std::string::npos) ++refused;
      else ADD_FAILURE() << dump(p);
    }
    ASSERT_FALSE(swap.failed()) << "renameat2(RENAME_EXCHANGE) failed here";
  }
  EXPECT_EQ(escaped, 0) << "read a source out of the folder; " << inside << " read inside, " << refused << " refused";
  fs::remove_all(dir);
  fs::remove_all(outside);
}

TEST(SolutionSchema, VerifyReadsTheOfficialShapes) {
  // prepare_solution: binding null, dps false, LOCAL; the entry file and the sources written out.
  const fs::path dir = tmp("prepare");
  fs::create_directories(dir);
  for (const char* base : {"triton", "cuda"}) {
    const std::string path = (dir / (std::string(base) + ".json")).string();
    std::ofstream(path) << corpus()["bases"][base].dump();
    const Solution s = prepare_solution(path, (dir / base).string());
    EXPECT_EQ(s.binding, "torch");
    EXPECT_EQ(s.definition, "090_batched_2d_rope_position_encoding_backward");
    EXPECT_EQ(s.cpp, std::string(base) == "cuda");
    EXPECT_EQ(s.destination_passing, std::string(base) == "cuda");
    EXPECT_TRUE(fs::is_regular_file(dir / base / (s.cpp ? "kernel.cu" : "kernel.py")));
  }
  // A refusal lists every broken rule with the official field name.
  json bad = corpus()["bases"]["triton"];
  bad["spec"]["target_hardware"] = {"local"};
  bad["spec"]["binding"] = "jax";
  const std::string path = (dir / "bad.json").string();
  std::ofstream(path) << bad.dump();
  try {
    prepare_solution(path, (dir / "bad").string());
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path + ": spec.target_hardware[0]: expected \"B200\" or \"LOCAL\""), std::string::npos) << m;
    EXPECT_NE(m.find("spec.binding"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

TEST(DefinitionScope, TheDefinitionsGradDtypes) {
  const fs::path dir = tmp("definition");
  fs::create_directories(dir);
  Solution s;
  s.path = (dir / "solution.json").string();
  s.definition = "090_batched_2d_rope_position_encoding_backward";
  EXPECT_EQ(definition_scope(s).grad_dtypes, std::vector<ref::Dtype>{ref::Dtype::bf16});  // SOL-ExecBench's 090
  EXPECT_EQ(definition_scope(s).head_dim, 128);
  s.definition = "091_something_else";
  EXPECT_TRUE(definition_scope(s).grad_dtypes.empty());
  EXPECT_EQ(definition_scope(s).head_dim, 0);
  json def = read_json_file(std::string(ROPE2D_TEST_DIR) + "/../../data/golden-smoke/solexecbench/definition.json", JsonFormat::definition);
  def["name"] = "091_something_else";
  def["inputs"]["grad_cos"]["dtype"] = def["inputs"]["grad_sin"]["dtype"] = "float32";
  std::ofstream((dir / "definition.json").string()) << def.dump();
  EXPECT_EQ(definition_scope(s).grad_dtypes, std::vector<ref::Dtype>{ref::Dtype::fp32});
  EXPECT_EQ(definition_scope(s).head_dim, 128);
  def["axes"]["head_dim"] = {{"type", "var"}};
  std::ofstream((dir / "definition.json").string()) << def.dump();
  EXPECT_THROW(definition_scope(s), std::invalid_argument);  // no constant head_dim
  def["axes"]["head_dim"] = {{"type", "const"}, {"value", 64}};
  std::ofstream((dir / "definition.json").string()) << def.dump();
  EXPECT_EQ(definition_scope(s).head_dim, 64);
  def["inputs"]["grad_sin"]["dtype"] = "float16";
  std::ofstream((dir / "definition.json").string()) << def.dump();
  EXPECT_THROW(definition_scope(s).grad_dtypes, std::invalid_argument);  // grads of two dtypes
  s.definition = "090_batched_2d_rope_position_encoding_backward";  // another definition's file: not this one's
  EXPECT_EQ(definition_scope(s).grad_dtypes, std::vector<ref::Dtype>{ref::Dtype::bf16});
  fs::remove_all(dir);
}

// A definition the verifier knows cannot be redrawn by the submitter's file: a wider head_dim
// or another dtype would leave sets out of the verdict. The published values are read as given.
TEST(DefinitionScope, AKnownDefinitionsFileMayOnlyAgree) {
  const fs::path dir = tmp("known-definition");
  fs::create_directories(dir);
  Solution s;
  s.path = (dir / "solution.json").string();
  s.definition = "090_batched_2d_rope_position_encoding_backward";
  const auto refused = [&](const json& def, const std::string& field) {
    std::ofstream((dir / "definition.json").string()) << def.dump();
    try {
      definition_scope(s);
      ADD_FAILURE() << "accepted " << def.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  json def = definition_of(s.definition, "bfloat16");
  std::ofstream((dir / "definition.json").string()) << def.dump();
  EXPECT_EQ(definition_scope(s).head_dim, 128);  // control: as published
  EXPECT_EQ(definition_scope(s).grad_dtypes, std::vector<ref::Dtype>{ref::Dtype::bf16});
  def["axes"]["head_dim"] = {{"type", "const"}, {"value", 1048576}};
  refused(def, "axes.head_dim.value: expected 128");
  refused(definition_of(s.definition, "float32"), "inputs.grad_cos.dtype: expected bf16");
  fs::remove_all(dir);
}

// definition.json as a link: read when it stays in the solution's folder, refused (naming the
// file and the link) when it leads out of it, as to a file the submitter could not read.
TEST(DefinitionScope, ALinkOutOfTheSolutionsFolderIsRefused) {
  // `outside` begins with the folder's name: a check by string prefix would let it through.
  const fs::path dir = tmp("definition-link"), outside = tmp("definition-link-out");
  fs::create_directories(dir / "defs");
  fs::create_directories(outside);
  const Solution s = solution_of("091_something_else", dir);
  const json def = definition_of(s.definition, "float32");
  std::ofstream((dir / "defs" / "definition.json").string()) << def.dump();
  std::ofstream((outside / "definition.json").string()) << def.dump();
  fs::create_symlink("defs/definition.json", dir / "definition.json");
  EXPECT_EQ(definition_scope(s).grad_dtypes, std::vector<ref::Dtype>{ref::Dtype::fp32});
  fs::remove(dir / "definition.json");
  fs::create_symlink(outside / "definition.json", dir / "definition.json");
  try {
    definition_scope(s);
    ADD_FAILURE() << "a definition.json linked out of the solution's folder was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "definition.json").string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a link to"), std::string::npos) << e.what();
  }
  fs::remove(dir / "definition.json");
  fs::create_symlink("../" + outside.filename().string() + "/definition.json", dir / "definition.json");  // relative, out
  EXPECT_THROW(definition_scope(s), std::invalid_argument);
  fs::remove_all(dir);
  fs::remove_all(outside);
}

// definition.json swapped, between the verifier's looks, for a link out of the folder: it is
// opened once, beneath the folder, so each read is the file inside or a refusal, never the file
// out there (checked, then reopened by name, it was read now and then).
TEST(DefinitionScope, AFileSwappedForALinkOutIsNeverRead) {
  const fs::path dir = tmp("definition-swap"), outside = tmp("definition-swap-out");
  fs::create_directories(dir);
  fs::create_directories(outside);
  const Solution s = solution_of("091_something_else", dir);
  std::ofstream((dir / "definition.json").string()) << definition_of(s.definition, "float32").dump();
  std::ofstream((outside / "definition.json").string()) << definition_of(s.definition, "float16").dump();  // the one out there
  fs::create_symlink(outside / "definition.json", dir / "swap");
  int inside = 0, refused = 0, escaped = 0;
  {
    const Swapper swap(dir / "definition.json", dir / "swap");
    for (int i = 0; i < 4000 && !escaped; ++i) try {
        const std::vector<ref::Dtype> d = definition_scope(s).grad_dtypes;
        (d == std::vector<ref::Dtype>{ref::Dtype::fp32} ? inside : escaped)++;
      } catch (const std::invalid_argument& e) {
        ++refused;
        EXPECT_NE(std::string(e.what()).find((dir / "definition.json").string()), std::string::npos) << e.what();
      }
    ASSERT_FALSE(swap.failed()) << "renameat2(RENAME_EXCHANGE) failed here";
  }
  EXPECT_EQ(escaped, 0) << "read the definition out of the folder; " << inside << " read inside, " << refused << " refused";
  fs::remove_all(dir);
  fs::remove_all(outside);
}

TEST(DefinitionScope, BeyondTheDefinitionNeverFailsTheVerdict) {
  Report r;
  SetResult in{"randn/bf16/1x64", "randn", ref::Dtype::bf16};
  in.integrity = "ok";
  in.metrics.count = 64;
  SetResult beyond{"randn/fp16/1x64", "randn", ref::Dtype::fp16};
  beyond.error = "the solution raised: expected bfloat16";
  beyond.beyond_definition = true;
  r.results = {in, beyond};
  EXPECT_EQ(r.verdict(), Disposition::passed);
  EXPECT_EQ(r.exit_code(), 0);
  const std::string s = summary(r);
  EXPECT_NE(s.find("(beyond the definition)"), std::string::npos) << s;
  EXPECT_NE(s.find("beyond the definition (not in the verdict): 0 of 1 sets passed"), std::string::npos) << s;
  const JUnitSuite j = junit_suite(r);
  ASSERT_EQ(j.cases.size(), 2u);
  EXPECT_EQ(j.cases[1].outcome, Outcome::skipped);
  EXPECT_NE(j.cases[1].message.find("beyond the definition"), std::string::npos);
  // The flag survives report.json, and without it the same failure fails the run.
  const fs::path dir = tmp("beyond");
  write_report(dir.string(), r);
  const Report back = read_report_json((dir / "report.json").string());
  ASSERT_EQ(back.results.size(), 2u);
  EXPECT_TRUE(back.results[1].beyond_definition);
  EXPECT_FALSE(back.results[0].beyond_definition);
  r.results[1].beyond_definition = false;
  EXPECT_EQ(r.verdict(), Disposition::failed);
  fs::remove_all(dir);
}

TEST(DefinitionScope, TheDefinitionsAxesShapeTheCalls) {
  ProblemSpec flat;
  flat.elements = 3 * 128;
  EXPECT_EQ(solution_shape(flat, 128), (std::vector<std::int64_t>{1, 3, 128}));
  EXPECT_EQ(solution_shape(flat, 0), (std::vector<std::int64_t>{3 * 128}));
  EXPECT_TRUE(on_axes(flat, 128));
  flat.elements = 7;
  EXPECT_EQ(solution_shape(flat, 128), (std::vector<std::int64_t>{7}));
  EXPECT_FALSE(on_axes(flat, 128));
  EXPECT_TRUE(on_axes(flat, 0));
  ProblemSpec shaped;
  shaped.batch = 2;
  shaped.seq_len = 5;
  EXPECT_EQ(solution_shape(shaped, 128), (std::vector<std::int64_t>{2, 5, 128}));
  EXPECT_TRUE(on_axes(shaped, 128));
  EXPECT_FALSE(on_axes(shaped, 64));
}
