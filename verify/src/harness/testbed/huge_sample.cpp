// The --huge set and the sample it is judged on (host only; the run is in huge.cpp).
#include <algorithm>
#include <cstring>

#include "rope2d/ref/random.hpp"
#include "harness/testbed/huge.hpp"

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

}  // namespace rope2d::verify
