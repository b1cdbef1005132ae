// The --huge set and its sampled judging.
#include "rope2d/verify/huge.hpp"

#include <algorithm>
#include <cstring>

#include "rope2d/ref/random.hpp"
#include "rope2d/verify/contract.hpp"
#include "rope2d/verify/metrics.hpp"

namespace rope2d::verify {

namespace {

constexpr std::int64_t near = 4096;
constexpr std::int64_t drawn = 1 << 20;

}  // namespace

std::vector<ProblemSpec> huge_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  for (ref::Dtype d : o.grad_dtypes) {
    ProblemSpec p;
    p.set = "huge";
    p.grad_dtype = d;
    p.elements = (std::int64_t{1} << 31) + (1 << 20) + 3;
    p.light = true;
    p.seed = name_seed(o.seed, p.name());
    out.push_back(p);
  }
  return out;
}

std::vector<std::int64_t> judged_indices(const ProblemSpec& s) {
  const std::int64_t n = s.n();
  std::vector<std::int64_t> idx;
  auto around = [&](std::int64_t centre) {
    for (std::int64_t i = std::max<std::int64_t>(0, centre - near); i < std::min(n, centre + near); ++i) idx.push_back(i);
  };
  around(0);
  around(std::int64_t{1} << 31);
  around(std::int64_t{1} << 32);
  around(n);
  ref::Random rng(name_seed(s.seed, "judged indices"));
  for (std::int64_t k = 0; k < drawn && n > 0; ++k) idx.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

Problem sample_of(const Problem& p, const std::vector<std::int64_t>& idx) {
  Problem q;
  q.spec = p.spec;
  q.spec.elements = static_cast<std::int64_t>(idx.size());
  const std::size_t es = ref::size_bytes(p.spec.grad_dtype);
  q.gc.resize(idx.size() * es);
  q.gs.resize(idx.size() * es);
  q.theta.resize(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) {
    std::memcpy(&q.gc[k * es], &p.gc[idx[k] * es], es);
    std::memcpy(&q.gs[k * es], &p.gs[idx[k] * es], es);
    q.theta[k] = p.theta[idx[k]];
  }
  return q;
}

std::vector<SetResult> huge_checks(Testbed& bed, BackwardFn fn, const SuiteOptions& o, Tier gate) {
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
        r.metrics = compare(s, compute_expected(s), got.data(), gate);
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
