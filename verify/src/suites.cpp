// The named problem sets.
#include "rope2d/verify/suites.hpp"

#include <stdexcept>

namespace rope2d::verify {

const std::vector<Workload>& benchmark_workloads() {
  // (batch_size, seq_len), head_dim 128; the last is 67,108,864 elements.
  static const std::vector<Workload> w = {{2, 773},  {1, 1801}, {8, 1024}, {64, 613}, {1, 1249}, {32, 541},
                                          {2, 1321}, {32, 1657}, {16, 449}, {1, 691},  {2, 256},  {4, 853},
                                          {8, 1489}, {2, 1879}, {8, 373},  {64, 8192}};
  return w;
}

namespace {

ProblemSpec spec(std::string set, AngleSource src, ref::Dtype d, std::int64_t b, std::int64_t s, std::uint64_t seed) {
  ProblemSpec p;
  p.set = std::move(set);
  p.source = src;
  p.grad_dtype = d;
  p.batch = b;
  p.seq_len = s;
  p.seed = seed;
  return p;
}

}  // namespace

std::vector<ProblemSpec> benchmark_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  std::uint64_t seed = o.seed;
  for (ref::Dtype d : o.grad_dtypes)
    for (const Workload& w : benchmark_workloads()) {
      // Quick runs keep every shape's sequence length but one sequence of it.
      const std::int64_t b = o.quick ? 1 : w.batch;
      out.push_back(spec("randn", AngleSource::randn, d, b, w.seq_len, seed++));
    }
  return out;
}

std::vector<ProblemSpec> smoke_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  std::uint64_t seed = o.seed;
  for (ref::Dtype d : o.grad_dtypes) {
    out.push_back(spec("randn", AngleSource::randn, d, 1, 64, seed++));
    out.push_back(spec("layout", AngleSource::layout, d, 1, 128, seed++));
    for (ref::Regime r : ref::all_regimes) {
      if (r == ref::Regime::randn || r == ref::Regime::layout) continue;
      ProblemSpec p = spec(std::string(ref::name(r)), AngleSource::regime, d, 1, 32, seed++);
      p.regime = r;
      out.push_back(p);
    }
    for (std::int64_t n : {7, 129}) {
      ProblemSpec p = spec("odd", AngleSource::randn, d, 1, 1, seed++);
      p.elements = n;
      p.misalign = 1;
      out.push_back(p);
    }
  }
  return out;
}

std::vector<ref::Dtype> parse_grad_dtypes(const std::vector<std::string>& names, const std::string& option) {
  std::vector<ref::Dtype> out;
  for (const auto& s : names) {
    const auto d = ref::parse_dtype(s);
    if (!d) throw std::invalid_argument(option + ": expected bf16, fp16 or fp32, found '" + s + "'");
    out.push_back(*d);
  }
  if (out.empty()) throw std::invalid_argument(option + ": expected at least one dtype");
  return out;
}

std::vector<ProblemSpec> verification_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out = benchmark_suite(o);
  std::uint64_t seed = o.seed + 1000;
  for (ref::Dtype d : o.grad_dtypes) {
    for (const Workload& w : benchmark_workloads()) {
      const std::int64_t b = o.quick ? 1 : w.batch;
      out.push_back(spec("layout", AngleSource::layout, d, b, w.seq_len, seed++));
    }
    out.push_back(spec("long", AngleSource::layout, d, 1, o.quick ? 16384 : o.long_seq, seed++));
    for (ref::Regime r : ref::all_regimes) {
      if (r == ref::Regime::randn || r == ref::Regime::layout) continue;
      ProblemSpec p = spec(std::string(ref::name(r)), AngleSource::regime, d, 1, o.quick ? 512 : 8192, seed++);
      p.regime = r;
      out.push_back(p);
    }
    // Sizes that are not multiples of 2, 4, 8 or 128, and views that start 1-3 elements off
    // a 16-byte boundary: the vector path's tails and its fallback.
    for (std::int64_t n : {1, 3, 7, 127, 129, 1001, 65537}) {
      for (int mis : {0, 1, 3}) {
        ProblemSpec p = spec("odd", AngleSource::randn, d, 1, 1, seed++);
        p.elements = n;
        p.misalign = mis;
        out.push_back(p);
      }
    }
  }
  return out;
}

}  // namespace rope2d::verify
