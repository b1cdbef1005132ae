// Replays every committed worst-case list (reference/worst/): the certified path equals the
// MPFR path bit for bit, and an honest float32 evaluation (glibc sinf/cosf) stays inside its
// proven bound; and the parser keeps each case's note and line, and rejects malformed lines
// with file:line. The reference opens no file: the test reads each list itself (the verifier's
// reader of the files, with its rules for untrusted paths, is codec/worst_list.hpp's).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <sstream>

#include "oracle.hpp"
#include "rope2d/ref/float32_bound.hpp"
#include "rope2d/ref/floats.hpp"
#include "rope2d/ref/overflow.hpp"
#include "rope2d/ref/worst_list.hpp"

using namespace rope2d::ref;

namespace {

std::string list_path(const char* name) { return std::string(ROPE2D_WORST_DIR) + "/" + name; }

// The list in a file, parsed with the file's name in its messages.
WorstList read_list(const std::string& path, int fields) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_worst_list(text.str(), path, fields);
}

bool same(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

void replay(const std::vector<Element>& elements, const char* list) {
  rope2d::test::Oracle oracle;
  const Float32Bound glibc = float32_bound(1.0);
  ASSERT_FALSE(elements.empty()) << list;
  for (const Element& e : elements) {
    const Rounded m = exact_backward(e), c = certified_backward(e);
    ASSERT_TRUE(same(m.fp32, c.fp32) && same(m.bf16, c.bf16) && same(m.fp16, c.fp16))
        << list << " gc=" << hex(e.gc) << " gs=" << hex(e.gs) << " t=" << hex(e.t);
    if (std::isfinite(m.fp32) && m.fp32 != 0) {
      ASSERT_EQ(m.fp32, oracle.rounded(e, Dtype::fp32)) << list << " t=" << hex(e.t);
    }
    const float out = -static_cast<float>(e.gc) * std::sin(e.t) + static_cast<float>(e.gs) * std::cos(e.t);
    // Near overflow the honest evaluation may return inf: its error is then the distance from
    // the exact value to the overflow threshold (overflow.hpp).
    const double err = std::isinf(out) ? overflow_error(out, oracle.value_d(e)) : std::fabs(oracle.error(e, out));
    ASSERT_LE(err, allowed_error(glibc, condition_scale(e), oracle.value_d(e), e.gc)) << list << " t=" << hex(e.t);
  }
}

}  // namespace

TEST(WorstLists, NearAxisAnglesReplay) {
  const WorstList l = read_list(list_path("near_axis.txt"), 1);
  EXPECT_GE(l.cases.size(), 21u);
  replay(worst_elements(l), "near_axis.txt");
}

TEST(WorstLists, Float32EvaluationWorstCasesReplay) {
  const WorstList l = read_list(list_path("float32_eval.txt"), 3);
  EXPECT_GE(l.cases.size(), 6u);
  replay(worst_elements(l), "float32_eval.txt");
}

TEST(WorstLists, KnownCounterexamplesReplay) {
  const WorstList l = read_list(list_path("known.txt"), 3);
  EXPECT_EQ(l.cases.size(), 3u);
  replay(worst_elements(l), "known.txt");
}

TEST(WorstLists, HeadersRecordTheCommand) {
  for (auto [name, fields] :
       {std::pair{"near_axis.txt", 1}, std::pair{"float32_eval.txt", 3}, std::pair{"known.txt", 3}}) {
    const WorstList l = read_list(list_path(name), fields);
    ASSERT_FALSE(l.header.empty());
    EXPECT_NE(l.header[0].find("make_worst"), std::string::npos) << name;
  }
}

// Messages name the text's file (the name handed to the parser) and the line.
TEST(WorstLists, MalformedLinesNameFileAndLine) {
  const std::string p = "lists/list.txt";
  auto expect_error = [&](const std::string& body, int fields, const std::string& where, const std::string& what) {
    try {
      parse_worst_list(body, p, fields);
      ADD_FAILURE() << "accepted: " << body;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(p + ":" + where + ":"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error("# h\n0x1p+0\n1.5\n", 1, "3", "expected a C99 hex float, found '1.5'");
  expect_error("# h\n0x1p+0 0x1p+1\n", 1, "2", "expected 1 hex floats, found 2");
  expect_error("# h\n0x1.0000001p+0\n", 1, "2", "expected a float32 angle");
  expect_error("# h\n0x1p+0 0x1p+0 0xzz\n", 3, "2", "found '0xzz'");
  expect_error("0x1p+0\n", 1, "1", "header");
  expect_error("# h\n0x1p+0 # 0x1p+1\n0x1p+0 0x1p+1 # x\n", 1, "3", "expected 1 hex floats, found 2");  // a note is not a field
  // Out of double's range: strtod says so only through errno (0x1p-99999 was read as 0).
  expect_error("# h\n0x1p-99999\n", 1, "2", "expected a hex float in the range of double, found '0x1p-99999'");
  expect_error("# h\n0x1p+99999\n", 1, "2", "in the range of double");
  expect_error("# h\n0x1p+0 0x1.8p-1074 0x1p+0\n", 3, "2", "in the range of double");  // inexact: rounds to 2^-1073
  // An echoed token is cut to 60 characters.
  const std::string long_token = "0x1" + std::string(5000, '0') + "zp+0";
  expect_error("# h\n" + long_token + "\n", 1, "2", "found '" + long_token.substr(0, 60) + "...'");
  // A byte that is not printable ASCII (a terminal's escape) is echoed as '?'.
  expect_error("# h\n0x1p+0\x1b]0;owned\x07\xff\n", 1, "2", "found '0x1p+0?]0;owned?" "?'");
}

TEST(WorstLists, MessagesStayShort) {
  const std::string p = "lists/list.txt";
  try {
    parse_worst_list("# h\n" + std::string(100000, 'x') + "\n", p, 1);
    ADD_FAILURE() << "accepted a line of x";
  } catch (const std::invalid_argument& e) {
    EXPECT_LT(std::string(e.what()).size(), p.size() + 200) << e.what();
  }
}

TEST(WorstLists, NotesAndLinesAreKept) {
  const WorstList l = parse_worst_list("# made by: test\n0x1p+0 # 1.5\n\n# part two\n-0x1.8p+1\n", "lists/list.txt", 1);
  EXPECT_EQ(l.header, (std::vector<std::string>{" made by: test", " part two"}));
  EXPECT_EQ(l.header_at, (std::vector<int>{1, 4}));
  ASSERT_EQ(l.cases.size(), 2u);
  EXPECT_EQ(l.cases[1][0], -3.0);
  EXPECT_EQ(l.notes, (std::vector<std::string>{" 1.5", ""}));
  EXPECT_EQ(l.case_at, (std::vector<int>{2, 5}));
  EXPECT_EQ(format_worst_list({" made by: test"}, l.cases, {}, l.notes), "# made by: test\n0x1p+0 # 1.5\n-0x1.8p+1\n");
}
