// Reaches a daemon outside the box through its socket file: attack_test.sh listens on
// /run/rope2d-attack/stream.sock (a stream) and /run/rope2d-attack/dgram.sock (datagrams, as
// the journal's), world-writable, where the system's daemons keep theirs (no mount stops a
// connect() to a socket file: the box hides /run), and leaves a mark for every connection or
// datagram. Tried four ways: socket() and connect(); socket() with the domain's high 32 bits
// set; a datagram socket of a socketpair() sent to the path; and through io_uring, whose
// operations no seccomp filter sees (refused in the box).
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include "attack.h"
#include "stub_kernel.h"

static const char* const listener = "/run/rope2d-attack/stream.sock";

static sockaddr_un address(const char* path = listener) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path, sizeof a.sun_path - 1);
  return a;
}

static void connect_and_say(int s, const char* words) {
  if (s < 0) return;
  const sockaddr_un a = address();
  if (connect(s, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) (void)!write(s, words, std::strlen(words));
  close(s);
}

static void by_calls() { connect_and_say(socket(AF_UNIX, SOCK_STREAM, 0), "by connect()\n"); }

static void by_high_bits() {
  connect_and_say(static_cast<int>(syscall(SYS_socket, 0x100000000L | AF_UNIX, SOCK_STREAM, 0)), "by high bits\n");
}

static void by_pair() {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) != 0) return;
  const sockaddr_un a = address("/run/rope2d-attack/dgram.sock");
  (void)!sendto(pair[0], "by socketpair\n", 14, 0, reinterpret_cast<const sockaddr*>(&a), sizeof a);
  close(pair[0]);
  close(pair[1]);
}

// One operation through a ring of one entry: its result, or -1 where the ring is refused.
struct Ring {
  int fd = -1;
  io_uring_sqe* sqes = nullptr;
  unsigned *sq_tail = nullptr, *sq_array = nullptr, *cq_head = nullptr, *cq_mask = nullptr;
  io_uring_cqe* cqes = nullptr;
  Ring() {
    io_uring_params p{};
    fd = static_cast<int>(syscall(__NR_io_uring_setup, 1, &p));
    if (fd < 0) return;
    const size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    const size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
    auto* sq = static_cast<char*>(mmap(nullptr, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQ_RING));
    auto* cq = static_cast<char*>(mmap(nullptr, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_CQ_RING));
    sqes = static_cast<io_uring_sqe*>(mmap(nullptr, sizeof(io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQES));
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
      close(fd);
      fd = -1;
      return;
    }
    sq_tail = reinterpret_cast<unsigned*>(sq + p.sq_off.tail);
    sq_array = reinterpret_cast<unsigned*>(sq + p.sq_off.array);
    cq_head = reinterpret_cast<unsigned*>(cq + p.cq_off.head);
    cq_mask = reinterpret_cast<unsigned*>(cq + p.cq_off.ring_mask);
    cqes = reinterpret_cast<io_uring_cqe*>(cq + p.cq_off.cqes);
  }
  int run(const io_uring_sqe& op) {
    if (fd < 0) return -1;
    sqes[0] = op;
    sq_array[0] = 0;
    __atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
    if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0) < 0) return -1;
    const int res = cqes[*cq_head & *cq_mask].res;
    __atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
    return res;
  }
};

static void by_ring() {
  Ring ring;
  if (ring.fd < 0) return;
  io_uring_sqe op{};
  op.opcode = IORING_OP_SOCKET;
  op.fd = AF_UNIX;
  op.off = SOCK_STREAM;
  const int s = ring.run(op);
  if (s < 0) return;
  static const sockaddr_un a = address();
  op = io_uring_sqe{};
  op.opcode = IORING_OP_CONNECT;
  op.fd = s;
  op.addr = reinterpret_cast<unsigned long>(&a);
  op.off = sizeof a;
  if (ring.run(op) == 0) (void)!write(s, "by io_uring\n", 12);
  close(s);
}

__attribute__((constructor)) static void attack() {
  by_calls();
  by_high_bits();
  by_pair();
  by_ring();
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
