// The Python host's notes (python/rope2d/runner/host_serve.py; a note is one record of
// host_protocol.hpp, a reply header and a JSON text) read once, where they arrive, into one
// typed event each. The host shares its process with the submission, so a note is a claim and
// may be forged: only the kinds the host sends, with exactly their fields of their types, are
// read; anything else is a BadNote that names what is wrong, and the judge changes nothing for it.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "harness/host_protocol.hpp"
#include "rope2d/verify/model/status.hpp"

namespace rope2d::verify::harness::wire {

// About the host (seq 0). {"type": "load", "import_s", "patched", "state", "threads"}: the
// solution imported, and what the import changed (torch attributes replaced, torch's global
// state, threads left running).
struct Loaded {
  double import_s = 0;
  std::vector<std::string> patched, state, threads;
};
// {"type": "load_error", "kind": "build" | "load", "message", "trace"?}: the solution could not
// be built (cause build) or loaded (cause runtime); the host serves no call.
struct LoadFailed {
  std::string message, trace;
  Cause cause = Cause::runtime;
};
// {"type": "build", "how"}: a C++ solution built, and how (the tool and its flags).
struct Built {
  std::string how;
};

// About call seq (>= 1). {"error", "kind": "runtime" | "shape" | "dtype"}: the call failed
// (cause runtime, shape or dtype).
struct CallFailed {
  std::string error;
  Cause cause = Cause::runtime;
};
// {"wall_s", "findings"}: the call's stream finished; its wall time and what the host found.
struct CallEnded {
  double wall_s = 0;
  std::vector<std::string> findings;
};

// Either: {"note", "kind"}, the host's stand-in for a note over max_note_bytes (host_wire.py's
// note_record; one that was an error is cut to {"error", "kind"} instead, a CallFailed).
// Its kind read as the cut note's cause; about the host, kind "build" or "load" is a load error's.
struct NoteCut {
  Cause cause = Cause::runtime;
  bool load_error = false;
};
// Not a note the host sends: why, in words (the text itself is not repeated).
struct BadNote {
  std::string why;
};

using HostEvent = std::variant<Loaded, LoadFailed, Built, CallFailed, CallEnded, NoteCut, BadNote>;

struct HostNote {
  std::uint64_t seq = 0;  // 0: about the host; else the call's
  HostEvent event;
};

// The note read: a JSON object of one of the kinds above for its seq, with no field missing or
// unknown, texts as strings, times as finite numbers >= 0 and lists as lists of strings; else a
// BadNote. Never throws on what the host sent.
HostNote parse_host_note(const Note& n);

// The notes of a run that were no kind the host sends: how many, and the reader's words on the
// first (the note's field names in them escaped and cut to 40 characters); and the notes
// dropped unread past the judge's limit between two takes. They change nothing else; the
// report says they came.
class UnreadNotes {
 public:
  // True when n was such a note (kept here); false for a note of the host's kinds.
  bool take(const HostNote& n);
  // Notes the judge dropped unread (RemoteKernel::take_notes's count).
  void dropped(int n) { dropped_ += n; }
  // The report's line, or "" when every note was read.
  std::string line() const;

 private:
  std::int64_t count_ = 0, dropped_ = 0;
  std::string first_;
};

}  // namespace rope2d::verify::harness::wire
