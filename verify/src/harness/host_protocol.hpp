// The judge and a host (the boxed process that holds a submission: the kernel host for the C
// ABI, the Python host for a solution) speak in fixed-size binary records over a
// SOCK_SEQPACKET socket: one record a message, a descriptor passed beside a map request
// (SCM_RIGHTS); a note (a reply header and a JSON text, the host's words on a call) is the one
// record of variable size. Every record read is validated whole (size, magic,
// operation, every field's range, padding zero) before any field is used; the judge takes a
// reply as a claim about a call it made, never as a verdict (nothing in a reply is a result:
// the results are in the judge's own memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace rope2d::verify::harness::wire {

inline constexpr std::uint32_t magic = 0x72326b68;  // "hk2r"
inline constexpr std::uint32_t max_regions = 1u << 16;
inline constexpr std::uint32_t max_slots = 64;        // streams of the host
inline constexpr std::uint32_t flag_pairs = 2048;     // go/done word pairs in region 1
inline constexpr std::uint32_t flags_region = 1;
inline constexpr std::uint32_t max_rank = 3;          // a call's shape: the solution's tensors
inline constexpr std::size_t max_note_bytes = 16384;  // a note's text

enum class Op : std::uint32_t { map = 1, unmap = 2, call = 3, bye = 4 };
enum class Entry : std::int32_t { plain = 0, fused = 1 };
// hello: the host is up (rc: 1 when rope2d_backward_fused is exported too). note: rc bytes of
// UTF-8 text follow the header in the same record, about call `seq` (0: about the host).
enum class Stage : std::int32_t { mapped = 0, launched = 1, finished = 2, hello = 3, note = 4 };

// A device pointer as (region, byte offset); region 0 is the null pointer.
struct Ref {
  std::uint32_t region = 0, pad = 0;
  std::uint64_t offset = 0;
};

struct Request {
  std::uint32_t magic = wire::magic;
  Op op = Op::bye;
  std::uint64_t seq = 0;          // the call's number (>= 1), unique; its flag pair is seq % flag_pairs
  std::uint32_t region = 0;       // map, unmap
  std::uint32_t capture = 0;      // call: 1 = record the call into a graph launched once (the caller's stream is capturing)
  std::uint64_t bytes = 0;        // map: bytes of the allocation
  std::int32_t entry = 0;         // call: Entry
  std::int32_t grad_dtype = 0;    // call: the ABI's grad dtype code, passed as given
  std::int64_t count = 0;         // call: n (plain) or tokens (fused)
  std::int32_t head_dim = 0;      // call: fused only
  std::uint32_t slot = 0;         // call: the host stream to launch on
  Ref arg[5];                     // call: plain gc, gs, theta, out; fused gc, gs, positions, theta table, out
  std::uint32_t rank = 0;         // call: the tensors' shape for a Python host (0: flat, count elements)
  std::uint32_t pad = 0;
  std::int64_t shape[max_rank] = {0, 0, 0};  // call: its product is count; unused entries 0
};

struct Reply {
  std::uint32_t magic = wire::magic;
  Stage stage = Stage::mapped;
  std::uint64_t seq = 0;          // the call's number, or the region mapped
  std::int32_t rc = 0;            // launched: the entry point's return; mapped: 0 or the driver's error
  std::int32_t cuda_error = 0;    // finished: the error after the call's device synchronisation (0: none)
};

static_assert(sizeof(Request) == 168 && sizeof(Reply) == 24,
              "the records are the protocol: change both sides (python/rope2d/runner/host_serve.py too)");

// The record in `bytes`, when it is one whole valid record; nothing otherwise.
std::optional<Request> parse_request(std::span<const unsigned char> bytes);
std::optional<Reply> parse_reply(std::span<const unsigned char> bytes);
// A note: its header and its text, when the record is one whole valid note (the header's rc is
// the text's length, at most max_note_bytes, no NUL in it). The text is meant to be a JSON
// object; whoever reads it parses it as untrusted.
struct Note {
  std::uint64_t seq = 0;
  std::string text;
};
std::optional<Note> parse_note(std::span<const unsigned char> bytes);

// Sends one record (with `fd` beside it when >= 0); false when the socket is gone.
bool send_record(int socket, const void* record, std::size_t size, int fd = -1);
// Receives one record into buf (at most `cap` bytes; a longer record is cut and so invalid);
// its size, 0 at end of file, -1 on error. A passed descriptor lands in *fd (else -1).
long receive_record(int socket, unsigned char* buf, std::size_t cap, int* fd);

}  // namespace rope2d::verify::harness::wire
