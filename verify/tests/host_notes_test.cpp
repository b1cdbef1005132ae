// The Python host's notes read into typed events (harness/host_notes.hpp): every kind the host
// sends is read with its fields, the notes python/rope2d/runner/host_wire.py writes included
// (cut ones too), and every other note, however malformed, is a BadNote that says why.
#include "harness/host_notes.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace wire = rope2d::verify::harness::wire;
using rope2d::verify::Cause;

namespace {

wire::HostEvent event_of(std::uint64_t seq, const std::string& text) {
  const wire::HostNote n = wire::parse_host_note({seq, text});
  EXPECT_EQ(n.seq, seq);
  return n.event;
}

// The index of kind T in HostEvent.
template <class T>
const std::size_t index_of = wire::HostEvent(T{}).index();

// The BadNote's words, or a failure naming the kind that was read instead.
std::string why_bad(std::uint64_t seq, const std::string& text) {
  const wire::HostEvent e = event_of(seq, text);
  if (const auto* b = std::get_if<wire::BadNote>(&e)) return b->why;
  ADD_FAILURE() << "read as kind " << e.index() << ", not refused: " << text;
  return "";
}

}  // namespace

TEST(HostNotes, EveryKindTheHostSendsIsReadWithItsFields) {
  const wire::HostEvent load = event_of(0, R"({"type": "load", "import_s": 1.25, "patched": ["torch.sin"],
                                          "state": ["deterministic: False -> True"], "threads": ["pool-1", "pool-2"]})");
  ASSERT_TRUE(std::holds_alternative<wire::Loaded>(load));
  const auto& l = std::get<wire::Loaded>(load);
  EXPECT_DOUBLE_EQ(l.import_s, 1.25);
  EXPECT_EQ(l.patched, std::vector<std::string>{"torch.sin"});
  EXPECT_EQ(l.state, std::vector<std::string>{"deterministic: False -> True"});
  EXPECT_EQ(l.threads, (std::vector<std::string>{"pool-1", "pool-2"}));

  const wire::HostEvent built_error =
      event_of(0, R"({"type": "load_error", "kind": "build", "message": "cannot build k.cu::run: nvcc failed", "trace": "Traceback"})");
  ASSERT_TRUE(std::holds_alternative<wire::LoadFailed>(built_error));
  EXPECT_EQ(std::get<wire::LoadFailed>(built_error).message, "cannot build k.cu::run: nvcc failed");
  EXPECT_EQ(std::get<wire::LoadFailed>(built_error).trace, "Traceback");
  EXPECT_EQ(std::get<wire::LoadFailed>(built_error).cause, Cause::build);
  // The map failure's load error has no trace.
  const wire::HostEvent load_error = event_of(0, R"({"type": "load_error", "kind": "load", "message": "cannot map"})");
  ASSERT_TRUE(std::holds_alternative<wire::LoadFailed>(load_error));
  EXPECT_EQ(std::get<wire::LoadFailed>(load_error).cause, Cause::runtime);
  EXPECT_TRUE(std::get<wire::LoadFailed>(load_error).trace.empty());

  const wire::HostEvent build = event_of(0, R"({"type": "build", "how": "torch.utils.cpp_extension.load"})");
  ASSERT_TRUE(std::holds_alternative<wire::Built>(build));
  EXPECT_EQ(std::get<wire::Built>(build).how, "torch.utils.cpp_extension.load");

  const std::pair<const char*, Cause> error_kinds[] = {{"runtime", Cause::runtime}, {"shape", Cause::shape}, {"dtype", Cause::dtype}};
  for (const auto& [kind, cause] : error_kinds) {
    const wire::HostEvent e = event_of(9, std::string(R"({"error": "ValueError: no", "kind": ")") + kind + "\"}");
    ASSERT_TRUE(std::holds_alternative<wire::CallFailed>(e)) << kind;
    EXPECT_EQ(std::get<wire::CallFailed>(e).error, "ValueError: no");
    EXPECT_EQ(std::get<wire::CallFailed>(e).cause, cause);
  }

  const wire::HostEvent end = event_of(1ull << 40, R"({"wall_s": 0.0123, "findings": ["threads left", "threads left"]})");
  ASSERT_TRUE(std::holds_alternative<wire::CallEnded>(end));
  EXPECT_DOUBLE_EQ(std::get<wire::CallEnded>(end).wall_s, 0.0123);
  EXPECT_EQ(std::get<wire::CallEnded>(end).findings.size(), 2u);  // as sent: the fold keeps each once
  EXPECT_DOUBLE_EQ(std::get<wire::CallEnded>(event_of(2, R"({"wall_s": 3, "findings": []})")).wall_s, 3.0);  // an integer is a time

  for (std::uint64_t seq : {0ull, 4ull})
    EXPECT_TRUE(std::holds_alternative<wire::NoteCut>(event_of(seq, R"({"note": "a note longer than the protocol allows, cut", "kind": "build"})")));
}

// The notes as python/rope2d/runner/host_wire.py writes them (note_record), with the fields
// host_serve.py gives each kind; a note over the protocol's limit comes cut, and is read as such.
TEST(HostNotes, TheNotesThePythonHostWritesAreRead) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("rope2d_notes_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  const std::string program =
      "import sys; sys.path.insert(0, sys.argv[1]); from rope2d.runner import host_wire as w\n"
      "big = 'x' * (w.MAX_NOTE + 1)\n"
      "notes = [(0, dict(type='load', import_s=0.5, patched=[], state=[], threads=['t'])),\n"
      "         (0, dict(type='load_error', kind='build', message='cannot build', trace='Traceback')),\n"
      "         (0, dict(type='load_error', kind='load', message=big, trace='')),\n"
      "         (0, dict(type='build', how='nvcc')),\n"
      "         (3, dict(error='ValueError: no', kind='shape')), (3, dict(error=big, kind='dtype')),\n"
      "         (3, dict(wall_s=0.001, findings=['f'])), (3, dict(wall_s=0.001, findings=[big]))]\n"
      "for i, (seq, fields) in enumerate(notes):\n"
      "    open(f'{sys.argv[2]}/{i}.bin', 'wb').write(w.note_record(seq, fields))\n";
  const std::string command = "python3 -c \"" + program + "\" " + ROPE2D_TEST_DIR "/../../python " + dir;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  // The kinds read, in order: a load error and a call's end over the limit come as cut notes,
  // a call's error over the limit as an error that says it was cut (its kind kept).
  const std::vector<std::size_t> kinds = {index_of<wire::Loaded>, index_of<wire::LoadFailed>, index_of<wire::NoteCut>,
                                          index_of<wire::Built>, index_of<wire::CallFailed>, index_of<wire::CallFailed>,
                                          index_of<wire::CallEnded>, index_of<wire::NoteCut>};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    std::ifstream in(dir + "/" + std::to_string(i) + ".bin", std::ios::binary);
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
    const auto note = wire::parse_note(bytes);
    ASSERT_TRUE(note.has_value()) << i;
    const wire::HostNote n = wire::parse_host_note(*note);
    EXPECT_EQ(n.event.index(), kinds[i]) << i << ": " << note->text.substr(0, 200)
                                         << (std::holds_alternative<wire::BadNote>(n.event) ? std::get<wire::BadNote>(n.event).why : "");
    if (i == 5) {
      EXPECT_EQ(std::get<wire::CallFailed>(n.event).cause, Cause::dtype);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(HostNotes, FieldsMissingUnknownOrOfAnotherTypeAreRefusedByName) {
  // Each a kind the host sends with one thing wrong, and a word the refusal must give.
  const struct {
    std::uint64_t seq;
    const char* text;
    const char* names;
  } cases[] = {
      {0, R"({"type": "load", "import_s": 1, "patched": [], "state": []})", "no field \"threads\""},
      {0, R"({"type": "load", "import_s": "1", "patched": [], "state": [], "threads": []})", "\"import_s\" is not a finite number"},
      {0, R"({"type": "load", "import_s": -1, "patched": [], "state": [], "threads": []})", "\"import_s\""},
      {0, R"({"type": "load", "import_s": 1, "patched": [3], "state": [], "threads": []})", "\"patched\" is not a list of strings"},
      {0, R"({"type": "load", "import_s": 1, "patched": "torch.sin", "state": [], "threads": []})", "\"patched\""},
      {0, R"({"type": "load", "import_s": 1, "patched": [], "state": [], "threads": [], "verdict": "passed"})", "unknown field \"verdict\""},
      {0, R"({"type": "load_error", "kind": "build"})", "no field \"message\""},
      {0, R"({"type": "load_error", "kind": "shape", "message": "m"})", "a kind other than"},
      {0, R"({"type": "load_error", "kind": 1, "message": "m"})", "\"kind\" is not a string"},
      {0, R"({"type": "load_error", "kind": "load", "message": "m", "trace": null})", "\"trace\""},
      {0, R"({"type": "build", "how": ["nvcc"]})", "\"how\" is not a string"},
      {0, R"({"type": "build"})", "no field \"how\""},
      {0, R"({"type": "passed"})", "unknown type"},
      {0, R"({"type": null})", "unknown type"},
      {0, R"({"note": "cut", "kind": "verdict"})", "unknown kind"},
      {0, R"({"note": "cut"})", "no field \"kind\""},
      {0, R"({"error": "x", "kind": "runtime"})", "no field \"type\""},  // a call's note about the host
      {0, "{}", "no field \"type\""},
      {7, R"({"error": "x"})", "no field \"kind\""},
      {7, R"({"error": "x", "kind": "build"})", "a kind other than"},
      {7, R"({"error": null, "kind": "runtime"})", "\"error\" is not a string"},
      {7, R"({"error": "x", "kind": "runtime", "wall_s": 1})", "unknown field \"wall_s\""},
      {7, R"({"wall_s": 1})", "no field \"findings\""},
      {7, R"({"wall_s": -0.5, "findings": []})", "\"wall_s\" is not a finite number >= 0"},
      {7, R"({"wall_s": true, "findings": []})", "\"wall_s\""},
      {7, R"({"wall_s": 1, "findings": [null]})", "\"findings\" is not a list of strings"},
      {7, R"({"wall_s": 1, "findings": {"a": "b"}})", "\"findings\""},
      {7, R"({"findings": []})", "neither an error"},
      {7, R"({"type": "load", "import_s": 1, "patched": [], "state": [], "threads": []})", "neither an error"},  // the host's, about a call
      {7, R"({"note": 1, "kind": "runtime"})", "\"note\" is not a string"},
  };
  for (const auto& c : cases) {
    const std::string why = why_bad(c.seq, c.text);
    EXPECT_NE(why.find(c.names), std::string::npos) << c.text << "\n  refused as: " << why;
    EXPECT_NE(why.find(c.seq ? "about call " + std::to_string(c.seq) : "about the host"), std::string::npos) << why;
  }
}

TEST(HostNotes, TextThatIsNoJsonObjectIsRefused) {
  for (const char* text : {"", " ", "not json", "[]", "3", "\"load\"", "null", "{", "{\"type\": \"load\"", "\xff\xfe",
                           "{\"type\": \"build\", \"how\": \"\xc3\x28\"}", "{\"wall_s\": NaN, \"findings\": []}",
                           "{\"wall_s\": 1e400, \"findings\": []}", "{\"wall_s\": Infinity, \"findings\": []}"}) {
    EXPECT_FALSE(why_bad(3, text).empty()) << text;
    EXPECT_FALSE(why_bad(0, text).empty()) << text;
  }
  EXPECT_NE(why_bad(3, "[1, 2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(why_bad(3, "{,}").find("not JSON"), std::string::npos);
}

TEST(HostNotes, HugeOrHostileTextIsRefusedInFewWords) {
  // Longer than the protocol allows (parse_note never gives one; the reader refuses it alone).
  std::string huge = R"({"wall_s": 1, "findings": [")" + std::string(wire::max_note_bytes, 'x') + "\"]}";
  EXPECT_NE(why_bad(1, huge).find("longer than"), std::string::npos);
  // Nested as deep as the limit allows, and a key of the submission's words: the refusal quotes
  // no more than a short, printable part of it.
  EXPECT_FALSE(why_bad(1, std::string(wire::max_note_bytes / 2, '[') + std::string(wire::max_note_bytes / 2, ']')).empty());
  const std::string key = R"(\u001b]0;owned\u0007)" + std::string(5000, 'k');
  const std::string why = why_bad(1, R"({"wall_s": 1, "findings": [], ")" + key + R"(": 0})");
  EXPECT_NE(why.find("unknown field"), std::string::npos) << why;
  EXPECT_LT(why.size(), 200u) << why;
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  // Bytes of every value, none of which may throw or crash the reader.
  const char alphabet[] = "{}[]\":,0123456789.-eE \\u\x80\xff";
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 2000; ++i) {
    std::string text(static_cast<std::size_t>(i % 97), '\0');
    for (char& ch : text) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      ch = alphabet[s % (sizeof alphabet - 1)];
    }
    EXPECT_NO_THROW(wire::parse_host_note({static_cast<std::uint64_t>(i % 2), text})) << i;
  }
}

TEST(HostNotes, NotesOfNoKindAreCountedForTheReportInTheReadersWords) {
  wire::UnreadNotes unread;
  EXPECT_EQ(unread.line(), "");
  EXPECT_FALSE(unread.take(wire::parse_host_note({2, R"({"wall_s": 0.5, "findings": []})"})));
  EXPECT_EQ(unread.line(), "") << "a note of the host's kinds is not counted";
  const std::string hostile = R"({"type": "load", "**Verdict: passed**\u001b[2J": 1})";
  EXPECT_TRUE(unread.take(wire::parse_host_note({0, hostile})));
  EXPECT_TRUE(unread.take(wire::parse_host_note({3, "not json"})));
  const std::string line = unread.line();
  EXPECT_EQ(line.rfind("2 note(s)", 0), 0u) << line;
  EXPECT_NE(line.find("about the host"), std::string::npos) << "the first one's words: " << line;
  EXPECT_NE(line.find("unknown field"), std::string::npos) << line;
  EXPECT_EQ(line.find("call 3"), std::string::npos) << "only the first is described: " << line;
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  // The note's field name, escaped and cut: its words, never its markup or bytes.
  EXPECT_NE(line.find(R"("**Verdict: passed**)"), std::string::npos) << line;
  unread.dropped(300);
  EXPECT_NE(unread.line().find("; 300 note(s) from the solution's host were dropped unread"), std::string::npos) << unread.line();
  wire::UnreadNotes only_dropped;
  only_dropped.dropped(1);
  EXPECT_EQ(only_dropped.line().rfind("1 note(s) from the solution's host were dropped unread", 0), 0u) << only_dropped.line();
}
