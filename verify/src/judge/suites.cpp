// The named problem sets. Beyond the 16 workloads the sets are generated from the dimensions
// a kernel can get wrong: size (every small n, every residue mod 2..256, launch-shape
// boundaries), placement (each pointer offset on its own, inputs flush with their allocation
// end), values (special grads x special angles) and grad dtype. Each set's seed comes from its
// name, so adding a set changes no other set.
#include "rope2d/verify/judge/suites.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

#include "rope2d/ref/words.hpp"
#include "rope2d/ref/random.hpp"
#include "rope2d/verify/judge/worst.hpp"

namespace rope2d::verify {

const std::vector<Workload>& benchmark_workloads() {
  // (batch_size, seq_len), head_dim 128; the last is 67,108,864 elements.
  static const std::vector<Workload> w = {{2, 773},  {1, 1801}, {8, 1024}, {64, 613}, {1, 1249}, {32, 541},
                                          {2, 1321}, {32, 1657}, {16, 449}, {1, 691},  {2, 256},  {4, 853},
                                          {8, 1489}, {2, 1879}, {8, 373},  {64, 8192}};
  return w;
}

namespace {

ProblemSpec spec(std::string set, AngleSource src, ref::Dtype d, std::int64_t b, std::int64_t s) {
  ProblemSpec p;
  p.set = std::move(set);
  p.source = src;
  p.grad_dtype = d;
  p.batch = b;
  p.seq_len = s;
  return p;
}

ProblemSpec flat(std::string set, AngleSource src, ref::Dtype d, std::int64_t n) {
  ProblemSpec p = spec(std::move(set), src, d, 1, 1);
  p.elements = n;
  return p;
}

// Seeds every spec from its finished name.
std::vector<ProblemSpec> seeded(std::vector<ProblemSpec> v, std::uint64_t base) {
  for (ProblemSpec& p : v) p.seed = name_seed(base, p.name());
  return v;
}

void add_regimes(std::vector<ProblemSpec>& out, ref::Dtype d, std::int64_t seq) {
  for (ref::Regime r : ref::all_regimes) {
    if (r == ref::Regime::randn || r == ref::Regime::layout) continue;
    ProblemSpec p = spec(std::string(ref::name(r)), AngleSource::regime, d, 1, seq);
    p.regime = r;
    out.push_back(p);
  }
}

// The sizes a vector body, a tail and a grid-stride loop can get wrong. Vector units are up
// to 16 bytes (8 bf16), blocks up to 1024 threads of up to 8 elements. `full` for the first
// dtype of a default run; the others (and --quick) get a thinner sweep of the same kinds.
// --quick: the same kinds with few distinct sizes, since a JIT kernel that takes n as a
// compile-time constant compiles once per size (a Triton tl.constexpr; about 0.4 s each on an
// H200): n = 0, below and past one vector unit, and at every launch unit (blocks of 128 to 8192
// elements, and 2^18) one size just past or short of it, the offsets chosen so that the sizes
// past a vector unit hold every residue mod 16 (1, 4, 5, 6, 10..15; the small ones the rest).
std::vector<std::int64_t> quick_sweep_sizes() {
  std::set<std::int64_t> n{0, 1, 2, 3, 7, 8, 9, 17};
  const std::pair<std::int64_t, std::int64_t> at[] = {{128, -1}, {128, 1}, {256, 4},     {512, 5},
                                                      {1024, 6}, {2048, -6}, {4096, -5}, {8192, -4},
                                                      {1 << 18, -3}, {1 << 18, -2}, {1 << 18, -1}, {1 << 18, 1}};
  for (const auto& [unit, d] : at) n.insert(unit + d);
  return {n.begin(), n.end()};
}

std::vector<std::int64_t> sweep_sizes(bool full) {
  if (!full) return quick_sweep_sizes();
  std::set<std::int64_t> n{0};
  for (std::int64_t k = 1; k <= (full ? 80 : 40); ++k) n.insert(k);                // every n up to 10 vector units
  for (std::int64_t r = 0; r < 256; r += full ? 1 : 7) n.insert(256 + r);          // every residue mod 256, small n
  for (std::int64_t r : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 31, 63, 127, 129, 200, 255})
    if (full || r < 8) n.insert((full ? 1 << 20 : 1 << 18) + r);                  // every residue mod 16, large n
  for (std::int64_t unit = 128; unit <= 8192; unit *= 2)                            // block x elements per thread
    for (std::int64_t k : {1, 3})
      for (std::int64_t d = -3; d <= 3; ++d)
        if (full || (k == 1 && d >= -1 && d <= 1)) n.insert(k * unit + d);
  if (full) {
    // n >= 2^24: one size judged in full is enough. 2^24 + 1 is past 65536 blocks of 256
    // threads by one element, past 2^24 (where float32 stops holding every index) and a
    // grid-stride loop's third pass on a grid capped at 65535 blocks of 128; 2^24 - 1 added
    // only a block boundary the residues at 2^20 and the k*unit +- 1..3 sizes already cover.
    // 65535 * 128 + 1: one element past that capped grid's first pass.
    n.insert((std::int64_t{1} << 24) + 1);
    n.insert(65535 * 128 + 1);
  }
  return {n.begin(), n.end()};
}

void add_sizes(std::vector<ProblemSpec>& out, ref::Dtype d, bool full) {
  for (std::int64_t n : sweep_sizes(full)) {
    ProblemSpec p = flat("odd", AngleSource::randn, d, n);
    p.light = true;
    out.push_back(p);
  }
}

// Element offsets 0..3 of the four pointers on a small n with a tail (all 4^4 combinations
// when full, else each pointer alone and all together); random combinations on a large n;
// and inputs flush with the end of their allocation (their start alignment follows from n).
void add_placement(std::vector<ProblemSpec>& out, ref::Dtype d, bool full, std::uint64_t base) {
  for (int c = 0; c < 256; ++c) {
    std::array<int, 4> o{};
    for (int k = 0; k < 4; ++k) o[k] = (c >> (2 * k)) & 3;
    const int moved = (o[0] != 0) + (o[1] != 0) + (o[2] != 0) + (o[3] != 0);
    const bool same = o[0] == o[1] && o[1] == o[2] && o[2] == o[3];
    if (!full && moved > 1 && !same) continue;
    ProblemSpec p = flat("place", AngleSource::randn, d, 67);
    p.offset = o;
    p.light = true;
    out.push_back(p);
  }
  ref::Random rng(name_seed(base, "place/combinations/" + std::string(ref::name(d))));
  for (int c = 0; c < (full ? 6 : 2); ++c) {  // quick: sizes of the size sweep (no new compilation)
    ProblemSpec p = flat("place", AngleSource::randn, d, full ? (1 << 20) + 5 + c : (1 << 18) + 1 - 2 * c);
    for (int& o : p.offset) o = static_cast<int>(rng.below(4));
    out.push_back(p);
  }
  for (std::int64_t n : {1, 7, 64, 67, 1000, 4096, 4099, 65541, 8, 127}) {
    if (full ? n == 8 || n == 127 : n == 64 || n > 127) continue;  // quick: sizes of the size sweep
    ProblemSpec p = flat("flush", AngleSource::randn, d, n);
    p.flush_end = true;
    p.light = true;
    out.push_back(p);
  }
}

void add_specials(std::vector<ProblemSpec>& out, ref::Dtype d) {
  // Two periods of the cross product (ordinary grads drawn afresh in each), with a tail.
  const std::int64_t period = static_cast<std::int64_t>(ref::special_angles().size() * ref::special_grads(d).size() *
                                                        ref::special_grads(d).size());
  out.push_back(flat("special", AngleSource::special, d, 2 * period + 3));
  ProblemSpec misaligned = flat("special", AngleSource::special, d, period);
  misaligned.offset = {1, 3, 2, 1};
  out.push_back(misaligned);
}

}  // namespace

std::vector<ProblemSpec> benchmark_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  for (ref::Dtype d : o.grad_dtypes)
    for (const Workload& w : benchmark_workloads()) {
      // Quick runs keep every shape's sequence length but one sequence of it.
      const std::int64_t b = o.quick ? 1 : w.batch;
      out.push_back(spec("randn", AngleSource::randn, d, b, w.seq_len));
    }
  return seeded(std::move(out), o.seed);
}

std::vector<ProblemSpec> smoke_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  for (ref::Dtype d : o.grad_dtypes) {
    out.push_back(spec("randn", AngleSource::randn, d, 1, 64));
    out.push_back(spec("layout", AngleSource::layout, d, 1, 128));
    add_regimes(out, d, 32);
    for (std::int64_t n : {7, 129}) {
      ProblemSpec p = flat("odd", AngleSource::randn, d, n);
      p.set_offsets(1);
      out.push_back(p);
    }
  }
  return seeded(std::move(out), o.seed);
}

std::span<const NamedSuite> named_suites() {
  static const NamedSuite table[] = {
      {"smoke", "small, committed under data/", &smoke_suite},
      {"benchmark", "the 16 workloads", &benchmark_suite},
      {"verification", "every set of rope2d verify", &verification_suite},
  };
  return table;
}

std::string suite_names() {
  std::vector<std::string_view> words;
  for (const NamedSuite& s : named_suites()) words.push_back(s.name);
  return ref::spoken_list(words);
}

const NamedSuite& suite_named(std::string_view name, const std::string& option) {
  for (const NamedSuite& s : named_suites())
    if (s.name == name) return s;
  throw std::invalid_argument(option + ": expected " + suite_names() + ", found '" + std::string(name.substr(0, 60)) + "'");
}

std::vector<ref::Dtype> parse_grad_dtypes(const std::vector<std::string>& names, const std::string& option) {
  std::vector<ref::Dtype> out;
  for (const auto& s : names) {
    const auto d = ref::parse_dtype(s);
    if (!d) throw std::invalid_argument(option + ": expected " + ref::grad_dtype_names() + ", found '" + s + "'");
    out.push_back(*d);
  }
  if (out.empty()) throw std::invalid_argument(option + ": expected at least one dtype");
  return out;
}

std::string grad_dtype_list(const std::vector<ref::Dtype>& dtypes, std::string_view separator) {
  std::string s;
  for (ref::Dtype d : dtypes) s.append(s.empty() ? "" : separator).append(ref::name(d));
  return s;
}

std::vector<ProblemSpec> verification_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  for (std::size_t k = 0; k < o.grad_dtypes.size(); ++k) {
    const ref::Dtype d = o.grad_dtypes[k];
    // The first dtype (the benchmark's, bf16, by default) gets the workloads at full size, the
    // layout and long sets and the full sweeps; the others one randn sequence per workload and
    // the thinner sweeps, so every dtype is covered at a fraction of the cost.
    const bool primary = k == 0, full = primary && !o.quick;
    for (const Workload& w : benchmark_workloads()) out.push_back(spec("randn", AngleSource::randn, d, full ? w.batch : 1, w.seq_len));
    if (primary)
      for (const Workload& w : benchmark_workloads()) out.push_back(spec("layout", AngleSource::layout, d, full ? w.batch : 1, w.seq_len));
    if (primary) out.push_back(spec("long", AngleSource::layout, d, 1, o.quick ? 16384 : o.long_seq));
    add_regimes(out, d, full ? 8192 : 449);  // quick: a workload's sequence length (its shape is judged anyway)
    add_specials(out, d);
    add_sizes(out, d, full);
    add_placement(out, d, full, o.seed);
    if (!o.worst_dir.empty()) out.push_back(worst_problem(o.worst_dir, d).spec);
  }
  return seeded(std::move(out), o.seed);
}

std::vector<ProblemSpec> sanitize_suite(const SuiteOptions& o) {
  std::vector<ProblemSpec> out;
  for (ref::Dtype d : o.grad_dtypes) {
    out.push_back(spec("randn", AngleSource::randn, d, 1, 773));
    for (std::int64_t n : {0, 1, 3, 7, 67, 129, 1000, 4099}) {
      ProblemSpec p = flat("odd", AngleSource::randn, d, n);
      p.light = true;
      out.push_back(p);
    }
    add_placement(out, d, false, o.seed);  // each pointer offset alone, and every input flush with its end
    ProblemSpec sp = flat("special", AngleSource::special, d, 4099);
    out.push_back(sp);
  }
  return seeded(std::move(out), o.seed);
}

}  // namespace rope2d::verify
