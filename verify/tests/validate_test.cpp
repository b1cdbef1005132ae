// The shared input rules (verify/src/codec/input.hpp, validate.hpp; a worst-case list's file,
// worst_list.hpp) and the nightly configuration reader: each rule refuses what it must and names
// file, field, expected, found.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "codec/input.hpp"
#include "codec/nightly_config.hpp"
#include "codec/shell_text.hpp"
#include "codec/validate.hpp"
#include "codec/worst_list.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rope2d;

std::string temp(const std::string& name) { return (fs::temp_directory_path() / ("rope2d_validate_" + name)).string(); }

template <class F>
std::string message(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

std::string config(const std::string& body) {
  const std::string p = temp("nightly.json");
  std::ofstream(p) << body;
  return message([&] { verify::read_nightly_config(p); });
}

TEST(Input, JsonDepthIsBoundedBeforeParsing) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_NE(message([&] { verify::parse_json(deep, "f.json"); }).find("f.json: JSON: expected at most 64 levels"), std::string::npos);
  EXPECT_EQ(message([&] { verify::parse_json("[[[\"[[[[\"]]]", "f.json", 3); }), "accepted");  // brackets in strings do not count
}

TEST(Input, DuplicateKeysAreRefused) {
  EXPECT_NE(message([&] { verify::parse_json(R"({"a": 1, "b": {"a": 2}, "a": 3})", "f"); }).find("key \"a\": expected each key once"),
            std::string::npos);
  EXPECT_EQ(message([&] { verify::parse_json(R"({"a": {"a": 1}, "b": {"a": 2}})", "f"); }), "accepted");
  // A key that is not plain text is named as JSON writes it: no raw escape reaches a terminal.
  const std::string escaped = message([&] { verify::parse_json(R"({"a\u001b]0;owned\u0007": 1, "a\u001b]0;owned\u0007": 2})", "f"); });
  EXPECT_NE(escaped.find(R"(key "a\u001b]0;owned\u0007": expected each key once)"), std::string::npos) << escaped;
  EXPECT_EQ(escaped.find('\x1b'), std::string::npos) << escaped;
}

// A NUL byte would end the parser's text early (what follows unread) and a byte order mark is
// refused by other tools' parsers: both are refused, naming the file; a parse error quotes no
// raw bytes (control: the text without them is read).
TEST(Input, NulBytesAndByteOrderMarksAreRefused) {
  using namespace std::string_literals;
  EXPECT_NE(message([&] { verify::parse_json("{\"a\": 1}\0garbage {{{"s, "f.json"); }).find("f.json: the text: expected JSON text, found a NUL byte at byte 8"),
            std::string::npos);
  EXPECT_NE(message([&] { verify::parse_json("\xEF\xBB\xBF{\"a\": 1}", "f.json"); }).find("byte order mark"), std::string::npos);
  EXPECT_EQ(message([&] { verify::parse_json("{\"a\": 1}", "f.json"); }), "accepted");
  const std::string m = message([&] { verify::parse_json("{\"a\": \x1b[2J\xff}", "f.json"); });
  EXPECT_NE(m.find("f.json: not valid JSON"), std::string::npos) << m;
  EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
  EXPECT_EQ(m.find('\xff'), std::string::npos) << m;
}

TEST(Input, DescriptionsAreBounded) {
  EXPECT_EQ(verify::brief(nlohmann::json::array({1, 2, 3})), "an array of 3");
  EXPECT_LE(verify::brief(nlohmann::json(std::string(100000, 'x'))).size(), 80u);
}

TEST(Input, OnlyRegularFilesWithinTheLimit) {
  EXPECT_NE(message([] { verify::read_file("/dev/zero"); }).find("expected a regular file, found a device"), std::string::npos);
  const std::string fifo = temp("fifo");
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message([&] { verify::read_file(fifo); }).find("found a FIFO"), std::string::npos);  // returns: no writer needed
  fs::remove(fifo);
  const std::string big = temp("big");
  std::ofstream(big) << std::string(100, 'x');
  EXPECT_NE(message([&] { verify::read_file(big, 99); }).find("expected at most 99 bytes, found 100"), std::string::npos);
  fs::remove(big);
}

// A worst-case list's file comes through the same reader (the reference parses its text): a
// folder or a FIFO is refused by name without reading it, a malformed line named by file and line.
TEST(Input, WorstListFilesComeThroughTheReader) {
  const fs::path dir = temp("worst");
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_NE(message([&] { verify::read_worst_list(dir.string(), 1); }).find("expected a regular file, found a directory"),
            std::string::npos);
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message([&] { verify::read_worst_list(fifo, 1); }).find("found a FIFO"), std::string::npos);
  const std::string p = (dir / "list.txt").string();
  std::ofstream(p) << "# h\n0x1p+0\n1.5\n";
  EXPECT_NE(message([&] { verify::read_worst_list(p, 1); }).find(p + ":3: expected a C99 hex float, found '1.5'"), std::string::npos);
  std::ofstream(p) << "# h\n0x1p+0 # a note\n";
  EXPECT_EQ(verify::read_worst_list(p, 1).notes, std::vector<std::string>{" a note"});
  fs::remove_all(dir);
}

TEST(Input, IntegersAreCheckedNotWrapped) {
  EXPECT_NE(message([] { verify::checked_product({std::int64_t{1} << 32, std::int64_t{1} << 32}, "shape"); }).find("fits in int64"),
            std::string::npos);
  EXPECT_EQ(verify::checked_product({3, 5, 7}, "shape"), 105);
  EXPECT_NE(message([] { verify::parse_uint("18446744073709551616", "seed"); }).find("seed"), std::string::npos);
  EXPECT_EQ(verify::parse_uint("18446744073709551615", "seed"), UINT64_MAX);
  EXPECT_NE(message([] { verify::parse_int("12x", "batch", 1, 10); }).find("batch: expected an integer in [1, 10]"), std::string::npos);
  EXPECT_NE(message([] { verify::parse_int("-0", "batch", 1, 10); }).find("batch"), std::string::npos);
  EXPECT_EQ(verify::parse_int("-3", "x", -5, 5), -3);
}

TEST(Input, ShellQuotingSurvivesAnyString) {
  EXPECT_EQ(verify::shell_quote("data/golden-smoke"), "data/golden-smoke");
  EXPECT_EQ(verify::shell_quote("x'; touch PWNED; echo '.cu"), "'x'\\''; touch PWNED; echo '\\''.cu'");
  EXPECT_EQ(verify::shell_quote(""), "''");
  EXPECT_EQ(verify::shell_quote("odd/bf16/n=1001+1"), "odd/bf16/n=1001+1");
  EXPECT_EQ(verify::shell_quote("$(touch x)"), "'$(touch x)'");
  EXPECT_EQ(verify::shell_join({"a b", "$(x)"}), "'a b' '$(x)'");
}

TEST(Validate, AtomicWritesFailLoudlyAndLeaveNoTemporary) {
  EXPECT_NE(message([] { verify::write_file_atomic("/proc/rope2d-nowhere/x", {"abc"}); }).find("cannot create a file beside it"),
            std::string::npos);
  const fs::path dir = temp("atomic");
  fs::remove_all(dir);
  fs::create_directories(dir);
  verify::write_file_atomic((dir / "f").string(), {"ab", "cd"});
  EXPECT_EQ(verify::read_file((dir / "f").string()), "abcd");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  // A target whose name is as long as a file name may be (255 bytes): its temporary's is cut.
  for (std::size_t length : {247, 248, 255}) {
    const fs::path long_name = dir / std::string(length, 'n');
    verify::write_file_atomic(long_name.string(), {"long"});
    EXPECT_EQ(verify::read_file(long_name.string()), "long") << length;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 4);
  fs::remove_all(dir);
}

// A folder the verifier fills (a report's build/ and solution/) holds no link a write would
// follow out of it; a copy into it never goes through a link at its target or its source.
TEST(Validate, OutputTreesHoldNoLinksAndCopiesFollowNone) {
  const fs::path dir = temp("tree");
  fs::remove_all(dir);
  fs::create_directories(dir / "build" / "deep");
  std::ofstream(dir / "victim") << "keep me";
  std::ofstream(dir / "build" / "deep" / "f") << "x";
  EXPECT_NO_THROW(verify::require_output_tree((dir / "build").string(), "--out"));
  EXPECT_NO_THROW(verify::require_output_tree((dir / "nothing").string(), "--out"));
  fs::create_symlink(dir / "victim", dir / "build" / "deep" / "submission.so");
  EXPECT_NE(message([&] { verify::require_output_tree((dir / "build").string(), "--out"); })
                .find("--out " + (dir / "build" / "deep" / "submission.so").string() +
                      ": expected a regular file or a directory, found a symbolic link"),
            std::string::npos);
  EXPECT_NE(message([&] { verify::copy_file_atomic((dir / "build" / "deep" / "f").string(), (dir / "build" / "deep" / "submission.so").string()); })
                .find("found a symbolic link"),
            std::string::npos);
  EXPECT_NE(message([&] { verify::copy_file_atomic((dir / "build" / "deep" / "submission.so").string(), (dir / "copy").string()); })
                .find("cannot open"),
            std::string::npos)
      << "a link as the source is not followed";
  EXPECT_EQ(verify::read_file((dir / "victim").string()), "keep me");
  verify::copy_file_atomic((dir / "victim").string(), (dir / "copy").string());
  EXPECT_EQ(verify::read_file((dir / "copy").string()), "keep me");
  std::ofstream(dir / "empty");
  verify::copy_file_atomic((dir / "empty").string(), (dir / "copy").string());
  EXPECT_EQ(verify::read_file((dir / "copy").string()), "");
  fs::remove_all(dir);
}

TEST(NightlyConfig, ReadsTheDocumentedForm) {
  const std::string sub = temp("cand.cu");
  std::ofstream(sub) << "// kernel\n";
  const std::string p = temp("nightly_ok.json");
  std::ofstream(p) << R"({"submissions": [")" << sub << R"("], "grad_dtypes": ["bf16", "fp32"], "sweep": {"from": 0, "to": 64, "budget_s": 5}})";
  const auto c = verify::read_nightly_config(p);
  EXPECT_EQ(c.submissions, std::vector<std::string>{sub});
  EXPECT_EQ(c.grad_dtypes, (std::vector<ref::Dtype>{ref::Dtype::bf16, ref::Dtype::fp32}));
  EXPECT_EQ(c.sweep_to, 64.0f);
  EXPECT_EQ(c.sweep_budget_s, 5.0);
  EXPECT_EQ(verify::read_nightly_config("").grad_dtypes.size(), 3u);
  EXPECT_EQ(c.sweep_lo(), 0u);
  EXPECT_EQ(c.sweep_hi(), 0x42800000u);  // the bit pattern of 64.0f: [from, to) in patterns
  EXPECT_FALSE(c.sweep_all);
  const std::string all = temp("nightly_all.json");
  std::ofstream(all) << R"({"sweep": {"angles": "all", "budget_s": 500}})";
  const auto a = verify::read_nightly_config(all);
  EXPECT_TRUE(a.sweep_all);
  EXPECT_EQ(a.sweep_lo(), 0u);
  EXPECT_EQ(a.sweep_hi(), std::uint64_t{1} << 32);
}

TEST(NightlyConfig, BadConfigsNameTheField) {
  EXPECT_NE(config(R"({"submissions": "x.cu"})").find("submissions: expected an array of paths, found the string \"x.cu\""),
            std::string::npos);
  EXPECT_NE(config(R"({"submissions": ["x'; touch PWNED; echo '.cu"]})").find("submissions[0]: expected an existing regular file"),
            std::string::npos);
  EXPECT_NE(config(R"({"submissions": [7]})").find("submissions[0]: expected a non-empty path, found the number 7"), std::string::npos);
  EXPECT_NE(config(R"({"grad_dtypes": ["bf16", "bf16"]})").find("grad_dtypes[1]: expected each dtype once, found the string \"bf16\" twice"),
            std::string::npos);
  EXPECT_NE(config(R"({"grad_dtypes": []})").find("grad_dtypes: expected a non-empty array"), std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"budget_s": "600"}})").find("sweep.budget_s: expected a number"), std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"to": 1e300}})").find("sweep.to: expected a number in"), std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"from": 5, "to": 5}})").find("sweep.to: expected a value above from"), std::string::npos);
  // -0 is the pattern 0x80000000, above every positive angle's: the range would be empty.
  EXPECT_NE(config(R"({"sweep": {"from": -0.0, "to": 16384}})").find("sweep.from: expected an angle >= +0"), std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"from": 0, "to": -0.0}})").find("sweep.to: expected an angle >= +0"), std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"budget": 5}})").find("sweep.budget: expected only from, to, angles and budget_s"),
            std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"angles": "some"}})").find("sweep.angles: expected \"all\""), std::string::npos);
  EXPECT_NE(config(R"({"sweep": {"angles": "all", "to": 5}})").find("sweep.angles: expected angles or from/to, not both"),
            std::string::npos);
  EXPECT_NE(config(R"({"date": "../../x"})").find("date: expected only submissions"), std::string::npos);
  EXPECT_NE(config(R"([1, 2])").find("(top): expected an object"), std::string::npos);
}

// A kernel's name (its file's stem) names its report folder: two of one name, or one named as
// this project's kernel, would overwrite each other's reports.
TEST(NightlyConfig, KernelNamesAreUnique) {
  const fs::path dir = temp("names");
  for (const char* f : {"alice/kernel.cu", "bob/kernel.cu", "bob/kernel.so", "rope2d.cu", "other.cu"}) {
    fs::create_directories((dir / f).parent_path());
    std::ofstream(dir / f) << "// kernel\n";
  }
  const auto list = [&](std::initializer_list<const char*> files) {
    std::string body = R"({"submissions": [)";
    for (const char* f : files) body += std::string(body.back() == '[' ? "" : ", ") + "\"" + (dir / f).string() + "\"";
    return config(body + "]}");
  };
  EXPECT_EQ(list({"alice/kernel.cu", "other.cu"}), "accepted");
  EXPECT_EQ(list({"alice/kernel.cu", "bob/kernel.cu"}),
            temp("nightly.json") + ": submissions[1]: expected each kernel name (the file's name without its ending) once, found the string \"" +
                (dir / "bob/kernel.cu").string() + "\", a second \"kernel\"");
  EXPECT_NE(list({"bob/kernel.cu", "bob/kernel.so"}).find("submissions[1]: expected each kernel name"), std::string::npos);
  EXPECT_EQ(list({"other.cu", "rope2d.cu"}),
            temp("nightly.json") + ": submissions[1]: expected a kernel name other than this project's kernel's (\"rope2d\"), found the string \"" +
                (dir / "rope2d.cu").string() + "\"");
  EXPECT_EQ(verify::kernel_name((dir / "alice/kernel.cu").string()), "kernel");
  fs::remove_all(dir);
}

}  // namespace
