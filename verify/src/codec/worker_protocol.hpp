// The messages between `rope2d verify` (the parent, no CUDA) and its worker child (all GPU
// work), one JSON object per line on a pipe. The parent needs them to keep a per-call time
// limit (call ... called), show progress (start), and report what finished when the child
// dies (end). One serialiser and one parser, both here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rope2d/ref/dtype.hpp"
#include "rope2d/verify/model/disposition.hpp"
#include "rope2d/verify/model/status.hpp"

namespace rope2d::verify::protocol {

struct Device { std::string name; };        // a GPU was found; judging starts
struct NoGpu { std::string reason; };       // none: the parent falls back to the CPU checks
struct Start { std::string name; std::size_t index = 0, count = 0; };  // problem index of count
struct Call { std::string name; };          // a kernel call begins: the time limit runs
struct Called {};                           // it returned
struct End {                                 // a set was judged
  std::string name, set;
  std::optional<ref::Dtype> dtype;            // its grad dtype (none: "" on the wire)
  Disposition disposition = Disposition::failed;
  std::string summary;
  Cause cause = Cause::runtime;               // why it has its disposition (status.hpp)
  std::vector<std::int64_t> shape;            // the problem's shape, for its trace line's axes
};
struct Done { Disposition verdict = Disposition::failed; };  // the report is written
struct Error { std::string message; };      // the worker threw

using Message = std::variant<Device, NoGpu, Start, Call, Called, End, Done, Error>;

// One lambda per kind of message for std::visit: std::visit(overloaded{[](const Start&) {...}, ...}, m).
template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

// One line, newline included.
std::string serialise(const Message& m);
// A line (with or without its newline); nullopt when it is not a message of this protocol
// (a disposition or verdict that names none included).
std::optional<Message> parse(std::string_view line);

// Writes the message to fd, whole (a broken pipe is ignored: the parent is gone).
void send(int fd, const Message& m);

}  // namespace rope2d::verify::protocol
