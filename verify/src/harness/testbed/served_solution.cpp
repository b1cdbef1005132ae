// A solution judged on the testbed through the Python host (served_solution.hpp).
#include "harness/testbed/served_solution.hpp"

#include <array>
#include <cstdio>
#include <map>

#include "harness/remote_kernel.hpp"
#include "harness/testbed/device.hpp"
#include "harness/testbed/device_judge.hpp"

namespace rope2d::verify {

std::string ServedSolution::unserved(const std::string& start_error, Cause* cause) {
  int dropped = 0;
  for (const harness::wire::HostNote& n : host_.take_notes(&dropped))
    if (!unread_.take(n) && n.seq == 0) read_host_note(n.event, start_);
  unread_.dropped(dropped);
  *cause = start_.load_error.empty() ? Cause::runtime : start_.load_cause;
  return start_.load_error.empty() ? start_error : start_.load_error;
}

Entry ServedSolution::entry(Testbed& bed) {
  const Entry plain = plain_entry(bed, &harness::RemoteKernel::backward);
  return {"",
          [this, plain](const Problem& p, int round) {
            host_.set_shape(solution_shape(p.spec, head_dim_));
            CallResult c = plain.call(p, round);
            // Per set: the first call of each problem (compiling JIT kernels) apart from the
            // calls after it, from the host's words on each call's wall time.
            bool first = round == 0;
            int dropped = 0;
            for (const harness::wire::HostNote& n : host_.take_notes(&dropped)) {
              if (unread_.take(n)) continue;
              if (n.seq == 0) {
                read_host_note(n.event, start_);
                continue;
              }
              if (!per_set_.count(p.spec.set)) order_.push_back(p.spec.set);
              auto& t = per_set_[p.spec.set];
              t[first ? 0 : 1] += fold_call_note(n.event, c);
              t[2] += 1;
              first = false;
            }
            unread_.dropped(dropped);
            return c;
          },
          {}};
}

std::vector<std::string> ServedSolution::notes() const {
  std::vector<std::string> notes = start_.notes;
  if (const std::string unread = unread_.line(); !unread.empty()) notes.push_back(unread);
  if (order_.empty()) return notes;
  std::string s = "time per set, first call of each problem (compiling JIT kernels) / the calls after it (all judged):";
  char buf[160];
  for (const std::string& set : order_) {
    const auto& t = per_set_.at(set);
    std::snprintf(buf, sizeof buf, " %s %.1f s / %.1f s (%d calls);", set.c_str(), t[0], t[1], static_cast<int>(t[2]));
    s += buf;
  }
  notes.push_back(s);
  return notes;
}

}  // namespace rope2d::verify
