// Running and judging the --huge set on the testbed.
#include "rope2d/verify/huge.hpp"

#include "rope2d/verify/contract.hpp"
#include "rope2d/verify/metrics.hpp"

namespace rope2d::verify {

std::vector<SetResult> huge_checks(Testbed& bed, BackwardFn fn, const SuiteOptions& o, Tier gate, Subnormals subnormals) {
  std::vector<SetResult> out;
  for (const ProblemSpec& spec : huge_suite(o)) {
    SetResult r{spec.name(), spec.set, std::string(ref::name(spec.grad_dtype))};
    try {
      const Problem p = make_problem(spec);
      const DeviceRun run = bed.run(fn, p, {.stream = false, .repeat = false, .inputs = true});
      if (run.integrity.declined) {
        mark_declined(r, spec.grad_dtype);
      } else if (!run.integrity.call_error.empty()) {
        r.error = run.integrity.call_error;
      } else {
        const std::vector<std::int64_t> idx = judged_indices(spec);
        const Problem s = sample_of(p, idx);
        std::vector<float> got(idx.size());
        for (std::size_t k = 0; k < idx.size(); ++k) got[k] = run.out[idx[k]];
        r.metrics = compare(s, compute_expected(s), got.data(), gate, max_failures_kept, subnormals);
        r.integrity = run.integrity.ok() ? "ok" : run.integrity.describe();
        r.kernel_ms = run.kernel_ms;
      }
      out.push_back(r);
      if (run.integrity.context_lost) break;
    } catch (const std::exception& e) {
      r.error = e.what();
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace rope2d::verify
