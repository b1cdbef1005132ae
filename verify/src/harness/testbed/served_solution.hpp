// A SOL-ExecBench solution judged on the testbed: the Python host (python/rope2d/runner/host_serve.py,
// started in the box by the judge's RemoteKernel) maps the judge's device memory and makes each
// call on it, as the kernel host does for a C ABI submission. So the judge allocates, pre-fills,
// guards and reads every buffer itself, and every check of the testbed (outputs poisoned, guard
// bands, inputs after the call, the busy stream, a repeat call bit for bit) is its own
// measurement; the host's notes add what only the solution's process can see (errors, the
// current stream or device left switched, threads, torch attributes, device memory held).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rope2d/verify/judge/judge.hpp"
#include "harness/host_notes.hpp"
#include "harness/solution.hpp"

namespace rope2d::verify {

namespace harness {
class RemoteKernel;  // harness/remote_kernel.hpp: the judge's side of a boxed host
}
class Testbed;

// The calls of one solution's host as the judge's entry: each call shaped as the definition's
// axes say, the host's notes folded into its result, the time of each set's calls kept.
class ServedSolution {
 public:
  ServedSolution(harness::RemoteKernel& host, std::int64_t head_dim) : host_(host), head_dim_(head_dim) {}
  // Why the host serves no call: its own load error (a build error: build), else `start_error`
  // (it did not start); "" when it serves. Reads the host's words on its start.
  std::string unserved(const std::string& start_error, Cause* cause);
  // The entry that calls the host on the testbed `bed` (which must outlive it).
  Entry entry(Testbed& bed);
  // The host's words on its start (the import's changes and time), the time per set, and how
  // many of its notes were of no kind it sends.
  std::vector<std::string> notes() const;

 private:
  harness::RemoteKernel& host_;
  std::int64_t head_dim_;
  HostStart start_;
  std::map<std::string, std::array<double, 3>> per_set_;  // first call, the calls after it, calls
  std::vector<std::string> order_;                         // the sets in the order judged
  harness::wire::UnreadNotes unread_;
};

}  // namespace rope2d::verify
