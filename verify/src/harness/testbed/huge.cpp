// Running and judging the --huge set on the testbed, through the judge: the case is the
// sample (sample_of) with its reference, the entry runs the kernel on the whole problem and
// hands back its outputs at the sampled indices.
#include "harness/testbed/huge.hpp"

#include <stdexcept>

#include "harness/testbed/device_judge.hpp"
#include "rope2d/verify/judge/judge.hpp"

namespace rope2d::verify {

std::vector<SetResult> huge_checks(Testbed& bed, BackwardFn fn, const SuiteOptions& o, Tier gate, Subnormals subnormals) {
  std::vector<SetResult> out;
  Judge judge(gate, 1);  // one call past 2^31 elements per set: one round
  judge.subnormals = subnormals;
  for (const ProblemSpec& spec : huge_suite(o)) {
    try {
      Problem whole;
      std::vector<std::int64_t> idx;
      const CaseSource sample = [&](int) {
        whole = make_problem(spec);
        idx = judged_indices(spec);
        Case c{sample_of(whole, idx), {}};
        compute_expected(c.problem, c.expected);
        return c;
      };
      const Entry entry{"", [&](const Problem&, int) {
                          CallResult c = call_result(bed.run(fn, whole, {.stream = false, .repeat = false, .inputs = true}));
                          if (!c.error.empty() || c.declined || c.context_lost) return c;
                          if (c.out.size() != static_cast<std::size_t>(whole.n()))
                            throw std::logic_error(spec.name() + ": the testbed handed back " + std::to_string(c.out.size()) + " outputs");
                          std::vector<float> got(idx.size());
                          for (std::size_t k = 0; k < idx.size(); ++k) got[k] = c.out[idx[k]];
                          c.out = std::move(got);
                          return c;
                        },
                        {}};
      for (SetResult& r : judge.judge(spec, sample, {entry})) out.push_back(std::move(r));
    } catch (const std::exception& e) {
      SetResult r{spec.name(), spec.set, spec.grad_dtype};
      r.error = e.what();
      r.shape = spec.shape();
      out.push_back(r);
    }
    if (judge.context_lost()) break;
  }
  return out;
}

}  // namespace rope2d::verify
