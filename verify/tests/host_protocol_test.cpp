// The judge's records with the kernel host (harness/host_protocol.hpp): every valid record is
// read back as sent, every field out of its range refuses the whole record, and records with a
// descriptor beside them cross a socket pair whole.
#include "harness/host_protocol.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <string>
#include <vector>

namespace wire = rope2d::verify::harness::wire;

namespace {

std::span<const unsigned char> bytes_of(const auto& record) {
  return {reinterpret_cast<const unsigned char*>(&record), sizeof record};
}

wire::Request call() {
  wire::Request q;
  q.op = wire::Op::call;
  q.seq = 5;
  q.count = 1000;
  q.slot = 3;
  q.arg[0] = {2, 0, 256};
  q.arg[3] = {4, 0, 0};
  return q;
}

}  // namespace

TEST(HostProtocol, ValidRecordsReadBackAsSent) {
  const wire::Request q = call();
  const auto r = wire::parse_request(bytes_of(q));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(std::memcmp(&*r, &q, sizeof q), 0);
  wire::Reply p;
  p.stage = wire::Stage::finished;
  p.seq = 5;
  p.cuda_error = 700;
  ASSERT_TRUE(wire::parse_reply(bytes_of(p)).has_value());
  EXPECT_EQ(wire::parse_reply(bytes_of(p))->cuda_error, 700);
}

TEST(HostProtocol, EveryFieldOutOfRangeRefusesTheRecord) {
  const std::vector<std::pair<const char*, std::function<void(wire::Request&)>>> bad{
      {"magic", [](wire::Request& q) { q.magic ^= 1; }},
      {"op", [](wire::Request& q) { q.op = static_cast<wire::Op>(9); }},
      {"seq 0", [](wire::Request& q) { q.seq = 0; }},
      {"capture", [](wire::Request& q) { q.capture = 2; }},
      {"entry", [](wire::Request& q) { q.entry = 2; }},
      {"negative count", [](wire::Request& q) { q.count = -1; }},
      {"huge count", [](wire::Request& q) { q.count = 1ll << 41; }},
      {"head_dim", [](wire::Request& q) { q.head_dim = -4; }},
      {"slot", [](wire::Request& q) { q.slot = wire::max_slots; }},
      {"region", [](wire::Request& q) { q.arg[1].region = wire::max_regions; }},
      {"padding", [](wire::Request& q) { q.arg[2].pad = 1; }},
      {"offset of null", [](wire::Request& q) { q.arg[4] = {0, 0, 8}; }},
      {"rank", [](wire::Request& q) { q.rank = wire::max_rank + 1; }},
      {"shape's product", [](wire::Request& q) { q.rank = 2, q.shape[0] = 10, q.shape[1] = 99; }},
      {"extent past the rank", [](wire::Request& q) { q.rank = 1, q.shape[0] = 1000, q.shape[1] = 1; }},
      {"negative extent", [](wire::Request& q) { q.rank = 2, q.shape[0] = -10, q.shape[1] = -100; }},
      {"shape's padding", [](wire::Request& q) { q.pad = 1; }},
  };
  for (const auto& [what, edit] : bad) {
    wire::Request q = call();
    edit(q);
    EXPECT_FALSE(wire::parse_request(bytes_of(q)).has_value()) << what;
  }
  wire::Request map;
  map.op = wire::Op::map;
  map.region = 0;  // region 0 is the null pointer, never mapped
  map.bytes = 4096;
  EXPECT_FALSE(wire::parse_request(bytes_of(map)).has_value());
  const wire::Request q = call();
  std::vector<unsigned char> longer(sizeof q + 1);
  std::memcpy(longer.data(), &q, sizeof q);
  EXPECT_FALSE(wire::parse_request(longer).has_value());
  EXPECT_FALSE(wire::parse_request(bytes_of(q).first(sizeof q - 1)).has_value());
  wire::Reply p;
  p.stage = wire::Stage::hello;
  p.seq = 2;  // hello is record 1
  EXPECT_FALSE(wire::parse_reply(bytes_of(p)).has_value());
  p.seq = 1, p.rc = 2;
  EXPECT_FALSE(wire::parse_reply(bytes_of(p)).has_value());
}

TEST(HostProtocol, AShapedCallReadsBackAsSent) {
  wire::Request q = call();
  q.rank = 3, q.shape[0] = 1, q.shape[1] = 10, q.shape[2] = 100;
  const auto r = wire::parse_request(bytes_of(q));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(std::memcmp(&*r, &q, sizeof q), 0);
  q.count = 0, q.shape[1] = 0;  // an empty tensor of that shape
  EXPECT_TRUE(wire::parse_request(bytes_of(q)).has_value());
}

// A note is a reply header (stage note, rc = the text's length) and its text in one record, as
// the Python host (python/rope2d/runner/host_serve.py, note_record) writes it.
std::vector<unsigned char> note(std::uint64_t seq, const std::string& text, int rc) {
  wire::Reply h;
  h.stage = wire::Stage::note;
  h.seq = seq;
  h.rc = rc;
  std::vector<unsigned char> b(sizeof h + text.size());
  std::memcpy(b.data(), &h, sizeof h);
  std::memcpy(b.data() + sizeof h, text.data(), text.size());
  return b;
}

TEST(HostProtocol, NotesAreReadWholeOrNotAtAll) {
  const std::string text = R"({"error": "ValueError: no", "kind": "shape"})";
  const auto n = wire::parse_note(note(7, text, static_cast<int>(text.size())));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->seq, 7u);
  EXPECT_EQ(n->text, text);
  EXPECT_TRUE(wire::parse_note(note(0, "", 0)).has_value());
  EXPECT_FALSE(wire::parse_note(note(7, text, static_cast<int>(text.size()) - 1)).has_value()) << "length";
  EXPECT_FALSE(wire::parse_note(note(7, text, -1)).has_value()) << "negative length";
  EXPECT_FALSE(wire::parse_note(note(7, std::string("a\0b", 3), 3)).has_value()) << "NUL";
  const std::string big(wire::max_note_bytes + 1, 'x');
  EXPECT_FALSE(wire::parse_note(note(7, big, static_cast<int>(big.size()))).has_value()) << "too long";
  EXPECT_TRUE(wire::parse_note(note(7, big.substr(1), static_cast<int>(big.size() - 1))).has_value());
  std::vector<unsigned char> other = note(7, text, static_cast<int>(text.size()));
  other[4] = static_cast<unsigned char>(wire::Stage::finished);
  EXPECT_FALSE(wire::parse_note(other).has_value()) << "another stage";
  EXPECT_FALSE(wire::parse_reply(note(7, "", 0)).has_value()) << "a note is no reply";
}

// The Python host's reader (python/rope2d/runner/host_wire.py) on records the C++ side wrote: every
// field where the C++ struct has it, and the notes it writes read back by parse_note.
TEST(HostProtocol, ThePythonHostReadsTheSameRecords) {
  wire::Request q = call();
  q.seq = 0x123456789ull, q.region = 9, q.capture = 1, q.bytes = 1ull << 33, q.grad_dtype = 2, q.head_dim = 128;
  q.count = 1280, q.rank = 3, q.shape[0] = 1, q.shape[1] = 10, q.shape[2] = 128;
  q.arg[4] = {7, 0, 0xabcdef};
  const std::string dir = (std::filesystem::temp_directory_path() / ("rope2d_wire_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/request.bin", std::ios::binary).write(reinterpret_cast<const char*>(&q), sizeof q);
  const std::string program =
      "import sys; sys.path.insert(0, sys.argv[1]); from rope2d.runner import host_wire as w\n"
      "q = w.parse_request(open(sys.argv[2] + '/request.bin', 'rb').read())\n"
      "print(q['op'], q['seq'], q['region'], q['capture'], q['bytes'], q['grad_dtype'], q['count'], q['head_dim'], q['slot'],"
      " q['args'], q['rank'], q['shape'])\n"
      "open(sys.argv[2] + '/note.bin', 'wb').write(w.note_record(42, {'error': 'x', 'kind': 'shape'}))\n";
  const std::string command =
      "python3 -c \"" + program + "\" " + ROPE2D_TEST_DIR "/../../python " + dir + " > " + dir + "/out.txt";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(dir + "/out.txt");
  const std::string got((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(got, "3 4886718345 9 1 8589934592 2 1280 128 3 [(2, 256), (0, 0), (0, 0), (4, 0), (7, 11259375)] 3 [1, 10, 128]\n");
  std::ifstream note_in(dir + "/note.bin", std::ios::binary);
  const std::vector<unsigned char> note_bytes((std::istreambuf_iterator<char>(note_in)), {});
  const auto n = wire::parse_note(note_bytes);
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->seq, 42u);
  EXPECT_EQ(n->text, R"({"error": "x", "kind": "shape"})");
  std::filesystem::remove_all(dir);
}

TEST(HostProtocol, RecordsAndDescriptorsCrossASocketPair) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  wire::Request q;
  q.op = wire::Op::map;
  q.region = 2;
  q.bytes = 2 << 20;
  ASSERT_TRUE(wire::send_record(sv[0], &q, sizeof q, pipe_fds[1]));
  unsigned char buf[256];
  int fd = -1;
  const long k = wire::receive_record(sv[1], buf, sizeof buf, &fd);
  ASSERT_EQ(k, static_cast<long>(sizeof q));
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(wire::parse_request({buf, static_cast<std::size_t>(k)}).has_value());
  ASSERT_EQ(::write(fd, "x", 1), 1);  // the descriptor that came is the pipe's write end
  char c = 0;
  ASSERT_EQ(::read(pipe_fds[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  ::close(fd);
  // A record longer than the reader's buffer is cut, and so never valid.
  std::vector<unsigned char> big(300, 0);
  ASSERT_TRUE(wire::send_record(sv[0], big.data(), big.size()));
  EXPECT_GT(wire::receive_record(sv[1], buf, sizeof buf, &fd), static_cast<long>(sizeof buf));
  ::close(sv[0]);
  EXPECT_EQ(wire::receive_record(sv[1], buf, sizeof buf, &fd), 0);  // end of file
  for (int f : {sv[1], pipe_fds[0], pipe_fds[1]}) ::close(f);
}
