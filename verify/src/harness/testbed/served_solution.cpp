// A solution judged on the testbed through the Python host (served_solution.hpp).
#include "harness/testbed/served_solution.hpp"

#include <array>
#include <cstdio>
#include <map>

#include "harness/remote_kernel.hpp"
#include "harness/testbed/device.hpp"
#include "harness/testbed/device_judge.hpp"
#include "rope2d/verify/judge/worst.hpp"

namespace rope2d::verify {

namespace {

// Per set: the first call of each problem (compiling JIT kernels) apart from the calls after
// it, from the host's words on each call's wall time.
class CallTimes {
 public:
  void add(const std::string& set, double seconds, bool first) {
    if (!per_set_.count(set)) order_.push_back(set);
    auto& t = per_set_[set];
    t[first ? 0 : 1] += seconds;
    t[2] += 1;
  }
  std::string line() const {
    if (order_.empty()) return "";
    std::string s = "time per set, first call of each problem (compiling JIT kernels) / the calls after it (all judged):";
    char buf[160];
    for (const std::string& set : order_) {
      const auto& t = per_set_.at(set);
      std::snprintf(buf, sizeof buf, " %s %.1f s / %.1f s (%d calls);", set.c_str(), t[0], t[1], static_cast<int>(t[2]));
      s += buf;
    }
    return s;
  }

 private:
  std::map<std::string, std::array<double, 3>> per_set_;
  std::vector<std::string> order_;
};

}  // namespace

std::vector<SetResult> judge_served_solution(Testbed& bed, harness::RemoteKernel& host, const std::string& start_error,
                                             const std::vector<ProblemSpec>& specs, const ServedRun& run) {
  HostStart start;
  for (const harness::wire::Note& n : host.take_notes())
    if (n.seq == 0) read_host_note(n.text, start);
  const auto keep_notes = [&](const std::string& extra) {
    if (!run.notes) return;
    run.notes->insert(run.notes->end(), start.notes.begin(), start.notes.end());
    if (!extra.empty()) run.notes->push_back(extra);
  };
  if (!start.load_error.empty() || !start_error.empty()) {
    keep_notes("");
    return start.load_error.empty() ? unjudged(specs, start_error, Cause::runtime)
                                    : unjudged(specs, start.load_error, start.load_cause);
  }
  Judge judge(run.gate, run.rounds);
  judge.stop_set_on_error = true;
  judge.subnormals = run.subnormals;
  judge.sources = suite_sources(run.worst_dir);
  if (run.on_call) judge.on_call = run.on_call;
  if (run.on_called) judge.on_called = run.on_called;
  const Entry plain = plain_entry(bed, &harness::RemoteKernel::backward);
  CallTimes times;
  const Entry served{"", [&](const Problem& p, int round) {
                       host.set_shape(solution_shape(p.spec, run.head_dim));
                       CallResult c = plain.call(p, round);
                       bool first = round == 0;
                       for (const harness::wire::Note& n : host.take_notes()) {
                         if (n.seq == 0) {
                           read_host_note(n.text, start);
                           continue;
                         }
                         times.add(p.spec.set, fold_call_note(n.text, c), first);
                         first = false;
                       }
                       return c;
                     },
                     {}};
  std::vector<SetResult> results;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    if (run.on_set) run.on_set(k);
    for (SetResult& r : judge.judge(specs[k], {served})) results.push_back(std::move(r));
  }
  keep_notes(times.line());
  return results;
}

}  // namespace rope2d::verify
