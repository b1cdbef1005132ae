// The judge's side of a C ABI submission that runs in the box: the kernel host (a separate
// program, kernel_host.cpp) loads the submission there and maps the judge's device memory,
// which the judge allocates, fills, guards and reads itself (shared through POSIX descriptors
// of the driver's virtual memory API). A call here sends the pointers as (region, offset) and
// orders the judge's stream around the host's launch on the GPU through two flag words: the
// judge's stream writes "go" where its own earlier work (pre-fill, stream hold) ends, the
// host's stream waits for it, runs the call and writes "done", which the judge's stream waits
// for. So the testbed's checks (guards, pre-fills, the stream hold, timing by events) run on
// the judge's stream as for a kernel in its own process.
//
// What the host sends back is a claim about its own calls (the entry point's return, an error
// after its synchronisation), never a result: the outputs are read from the judge's memory.
// Its "finished" is a claim too: a call is over when the judge's own stream has passed its
// wait for "done". A call not over within the call time limit gets its host killed, and the
// judge writes the "done" words itself (from a CUDA context of its own); where the GPU does
// not run even that within 30 s, this process ends with exit 3 rather than wait for ever.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "harness/host_notes.hpp"
#include "harness/host_protocol.hpp"
#include "harness/sandbox.hpp"
#include "rope2d/rope2d_backward.h"

namespace rope2d::verify::detail {
class EdgeAllocation;
}

namespace rope2d::verify::harness {

struct RemoteOptions {
  std::string host_program;  // rope2d-kernel-host
  std::string library;       // the submission's shared object, readable inside the box
  // Its entry points' names (its kind's, harness/kinds.hpp).
  std::string symbol = "rope2d_backward", fused_symbol = "rope2d_backward_fused";
  // The host's command when it is not the kernel host (the Python host of a solution: its
  // relay, python3 -m rope2d.runner); it finds the socket on descriptor 3.
  std::vector<std::string> command;
  std::string name = "kernel host";  // in messages
  int processes = 1;                 // the host's own processes in the box (the Python host: its relay too)
  BoxPolicy box;
  double start_timeout_s = 120;
  std::string start_option = "--load-timeout";  // what sets start_timeout_s, for the message
  double call_timeout_s = 60;
};

class RemoteKernel {
 public:
  explicit RemoteKernel(const RemoteOptions& o);  // error() says why it is not ready
  ~RemoteKernel();
  RemoteKernel(const RemoteKernel&) = delete;
  RemoteKernel& operator=(const RemoteKernel&) = delete;

  bool ready() const;
  const std::string& error() const;
  bool has_fused() const;  // the host's word: rope2d_backward_fused is exported

  // The shape the next calls' tensors have (a Python host wraps the buffers as tensors of
  // it); empty: flat, as the C ABI sees them.
  void set_shape(const std::vector<std::int64_t>& shape);
  // The host's notes (its words on itself, seq 0, and on each call, by seq) since the last
  // take, in order, each read as it arrived (host_notes.hpp); at most 256 are kept between
  // takes (the rest counted in `dropped`).
  std::vector<wire::HostNote> take_notes(int* dropped = nullptr);

  // The one in use in this process (the testbed's allocations are shared with it), or null.
  static RemoteKernel* active();

  // Makes `a` (a shareable allocation) visible to the host; false (why set) when it could not.
  bool share(const detail::EdgeAllocation& a, std::string* why);
  void unshare(const void* begin);

  // The submission's entry points as the testbed calls them: the ABI's types.
  static int backward(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, int grad_dtype,
                      cudaStream_t stream);
  static int fused(const void* gc, const void* gs, const std::int32_t* positions, const float* theta, float* out,
                   std::int64_t tokens, int head_dim, int grad_dtype, cudaStream_t stream);

  // After the caller's device synchronisation: waits until the host has said that every call
  // made so far finished; the first error it reported since the last settle ("" when none).
  // lost(): the host died or reported a fault; no call can run any more.
  std::string settle(bool* timed_out = nullptr);  // *timed_out: the error is a call that ran out of time
  bool lost() const;

  // Ends the host: its exit, its output (capped) and the processes it left in the box.
  struct End {
    BoxResult result;
    int left_running = 0;
  };
  End finish();

 private:
  // A call of the active host's entry point with these pointers (as regions and offsets).
  static int forward(wire::Entry entry, std::int64_t count, int head_dim, int grad_dtype,
                     std::initializer_list<const void*> args, cudaStream_t stream);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The testbed's hook: after a call's synchronisation, the remote call's error ("" when none
// or when no remote kernel is in use); *lost set when the host cannot run more calls.
std::string settle_remote_call(bool* lost, bool* timed_out = nullptr);

}  // namespace rope2d::verify::harness
