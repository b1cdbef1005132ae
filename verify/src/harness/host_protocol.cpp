// The kernel host's records (host_protocol.hpp): validation and the socket calls.
#include "harness/host_protocol.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rope2d::verify::harness::wire {

namespace {

template <class T>
std::optional<T> whole(std::span<const unsigned char> bytes) {
  if (bytes.size() != sizeof(T)) return std::nullopt;
  T t;
  std::memcpy(&t, bytes.data(), sizeof t);
  if (t.magic != magic) return std::nullopt;
  return t;
}

bool valid_ref(const Ref& r) { return r.pad == 0 && r.region < max_regions && (r.region != 0 || r.offset == 0); }

// Flat (rank 0, shape all 0) or a shape of non-negative extents whose product is the count.
bool valid_shape(const Request& r) {
  if (r.pad != 0 || r.rank > max_rank) return false;
  std::int64_t product = 1;
  for (std::uint32_t i = 0; i < max_rank; ++i) {
    const std::int64_t e = r.shape[i];
    if (i >= r.rank ? e != 0 : e < 0 || e > (1ll << 40)) return false;
    if (i < r.rank) product = e == 0 || product == 0 ? 0 : (product > (1ll << 40) / e ? -1 : product * e);
    if (product < 0) return false;
  }
  return r.rank == 0 || product == r.count;
}

}  // namespace

std::optional<Request> parse_request(std::span<const unsigned char> bytes) {
  const std::optional<Request> r = whole<Request>(bytes);
  if (!r) return r;
  switch (r->op) {
    case Op::map:
    case Op::unmap:
      if (r->region == 0 || r->region >= max_regions) return std::nullopt;
      if (r->op == Op::map && (r->bytes == 0 || r->bytes > (1ull << 40))) return std::nullopt;
      return r;
    case Op::call: {
      if (r->seq == 0 || r->capture > 1 || r->slot >= max_slots || r->count < 0 || r->count > (1ll << 40)) return std::nullopt;
      if (r->entry != static_cast<std::int32_t>(Entry::plain) && r->entry != static_cast<std::int32_t>(Entry::fused)) return std::nullopt;
      if (r->head_dim < 0 || r->head_dim > (1 << 20)) return std::nullopt;
      for (const Ref& a : r->arg)
        if (!valid_ref(a)) return std::nullopt;
      return valid_shape(*r) ? r : std::nullopt;
    }
    case Op::bye:
      return r;
  }
  return std::nullopt;
}

std::optional<Reply> parse_reply(std::span<const unsigned char> bytes) {
  const std::optional<Reply> r = whole<Reply>(bytes);
  if (!r) return r;
  switch (r->stage) {
    case Stage::mapped:
      return r->seq > 0 && r->seq < max_regions && r->cuda_error == 0 ? r : std::nullopt;
    case Stage::launched:
      return r->seq > 0 && r->cuda_error == 0 ? r : std::nullopt;
    case Stage::finished:
      return r->seq > 0 && r->rc == 0 && r->cuda_error >= 0 ? r : std::nullopt;
    case Stage::hello:
      return r->seq == 1 && (r->rc == 0 || r->rc == 1) && r->cuda_error == 0 ? r : std::nullopt;
    case Stage::note:
      return std::nullopt;  // a note is longer than a reply: parse_note
  }
  return std::nullopt;
}

std::optional<Note> parse_note(std::span<const unsigned char> bytes) {
  if (bytes.size() < sizeof(Reply)) return std::nullopt;
  Reply r;
  std::memcpy(&r, bytes.data(), sizeof r);
  const std::size_t text = bytes.size() - sizeof r;
  if (r.magic != magic || r.stage != Stage::note || r.cuda_error != 0 || r.rc < 0 || static_cast<std::size_t>(r.rc) != text ||
      text > max_note_bytes)
    return std::nullopt;
  Note n{r.seq, std::string(reinterpret_cast<const char*>(bytes.data()) + sizeof r, text)};
  if (n.text.find('\0') != std::string::npos) return std::nullopt;
  return n;
}

bool send_record(int socket, const void* record, std::size_t size, int fd) {
  iovec io{const_cast<void*>(record), size};
  msghdr m{};
  m.msg_iov = &io;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    std::memset(control, 0, sizeof control);
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  for (;;) {
    const ssize_t k = ::sendmsg(socket, &m, MSG_NOSIGNAL);
    if (k == static_cast<ssize_t>(size)) return true;
    if (k < 0 && errno == EINTR) continue;
    return false;
  }
}

long receive_record(int socket, unsigned char* buf, std::size_t cap, int* fd) {
  *fd = -1;
  iovec io{buf, cap};
  msghdr m{};
  m.msg_iov = &io;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t k;
  do k = ::recvmsg(socket, &m, MSG_CMSG_CLOEXEC);
  while (k < 0 && errno == EINTR);
  if (k < 0) return -1;
  // Every descriptor that came is taken: the first kept, any other closed.
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < n; ++i) {
      int got;
      std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
      if (*fd < 0) *fd = got;
      else ::close(got);
    }
  }
  if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) return static_cast<long>(cap) + 1;  // cut: not a valid record
  return static_cast<long>(k);
}

}  // namespace rope2d::verify::harness::wire
