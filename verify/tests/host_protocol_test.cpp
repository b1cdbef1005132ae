// The judge's records with the kernel host (harness/host_protocol.hpp): every valid record is
// read back as sent, every field out of its range refuses the whole record, and records with a
// descriptor beside them cross a socket pair whole.
#include "harness/host_protocol.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <functional>
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
