// A SOL-ExecBench solution judged on the testbed: the Python host (python/rope2d/runner/host_serve.py,
// started in the box by the judge's RemoteKernel) maps the judge's device memory and makes each
// call on it, as the kernel host does for a C ABI submission. So the judge allocates, pre-fills,
// guards and reads every buffer itself, and every check of the testbed (outputs poisoned, guard
// bands, inputs after the call, the busy stream, a repeat call bit for bit) is its own
// measurement; the host's notes add what only the solution's process can see (errors, the
// current stream or device left switched, threads, torch attributes, device memory held).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rope2d/verify/judge/judge.hpp"
#include "harness/solution.hpp"

namespace rope2d::verify {

namespace harness {
class RemoteKernel;  // harness/remote_kernel.hpp: the judge's side of a boxed host
}
class Testbed;

struct ServedRun {
  Tier gate = Tier::float32_bound;
  int rounds = 2;
  Subnormals subnormals = Subnormals::flush_allowed;
  std::string worst_dir;      // the worst set's lists
  std::int64_t head_dim = 0;  // the definition's: flat problems shaped by it (solution_shape)
  std::function<void(const std::string&)> on_call;  // each call, by set name (progress, time limits)
  std::function<void()> on_called;
  std::function<void(std::size_t k)> on_set;  // before set k of specs is judged
  std::vector<std::string>* notes = nullptr;  // the import's changes, time per set
};

// The results of every problem of `specs`, in order, from calls the host serves. A host that
// did not start fails every set with its own words (a build error: build).
std::vector<SetResult> judge_served_solution(Testbed& bed, harness::RemoteKernel& host, const std::string& start_error,
                                             const std::vector<ProblemSpec>& specs, const ServedRun& run);

}  // namespace rope2d::verify
