// Generating problems and computing their expected results with the certified reference; no I/O
// (a layout read from a file comes in the spec, parsed by codec/layout_json.hpp).
#include "rope2d/verify/model/problem.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "rope2d/ref/counter_random.hpp"
#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/random.hpp"

namespace rope2d::verify {

namespace {

constexpr std::int64_t gen_chunk = 1 << 16;

// A reused buffer resized to n: grown to exactly n (no doubling, no copy of old contents),
// or shrunk in place keeping its pages.
template <class T>
void fit(std::vector<T>& v, std::int64_t n) {
  if (static_cast<std::size_t>(n) > v.capacity()) v = std::vector<T>();
  v.resize(static_cast<std::size_t>(n));
}

void store(std::vector<std::uint8_t>& v, std::int64_t i, ref::Dtype d, double x) {
  ref::encode(d, x, &v[i * ref::size_bytes(d)]);
}

// Storage bits of a 2- or 4-byte element (little-endian, as every target of this suite).
void store_bits(std::vector<std::uint8_t>& v, std::int64_t i, int esize, std::uint32_t bits) {
  if (esize == 2) {
    const auto b = static_cast<std::uint16_t>(bits);
    std::memcpy(&v[i * 2], &b, 2);
  } else {
    std::memcpy(&v[i * 4], &bits, 4);
  }
}

// Each chunk has its own stream of draws, seeded from the problem's seed and the chunk index.
std::uint64_t chunk_seed(std::uint64_t seed, std::int64_t chunk) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(chunk) * 0xBF58476D1CE4E5B9ull + 1;
}

// Element i of the cross product special grad x special grad x special angle; an `ordinary`
// grad is a fresh randn value.
ref::Element special_element(std::int64_t i, ref::Random& rng, ref::Dtype d) {
  static const std::vector<float> angles = ref::special_angles();
  static const auto lists = [] {
    std::array<std::vector<ref::SpecialGrad>, ref::dtype_count> l;
    for (ref::Dtype x : ref::all_dtypes) l[static_cast<std::size_t>(x)] = ref::special_grads(x);  // entry k: Dtype(k)
    return l;
  }();
  const std::vector<ref::SpecialGrad>& grads = lists.at(static_cast<std::size_t>(d));
  const auto na = static_cast<std::int64_t>(angles.size()), ng = static_cast<std::int64_t>(grads.size());
  const std::int64_t k = i % (na * ng * ng);
  auto grad = [&](const ref::SpecialGrad& g) { return g.ordinary ? ref::round_to(d, rng.normal()) : g.value; };
  const double gc = grad(grads[k / (na * ng)]), gs = grad(grads[(k / na) % ng]);
  return {gc, gs, angles[k % na]};
}

}  // namespace

std::string ProblemSpec::name() const {
  std::string s = set + "/" + std::string(ref::name(grad_dtype)) + "/";
  if (elements >= 0) {
    s += "n=" + std::to_string(elements);
  } else {
    s += std::to_string(batch) + "x" + std::to_string(seq_len);
    if (head_dim != 128) s += "x" + std::to_string(head_dim);
  }
  if (offset != std::array<int, 4>{}) s += "+" + offsets_text();
  return s;
}

std::string ProblemSpec::offsets_text() const {
  if (offset[0] == offset[1] && offset[1] == offset[2] && offset[2] == offset[3]) return std::to_string(offset[0]);
  return std::to_string(offset[0]) + "," + std::to_string(offset[1]) + "," + std::to_string(offset[2]) + "," +
         std::to_string(offset[3]);
}

std::array<int, 4> ProblemSpec::parse_offsets(const std::string& text) {
  std::array<int, 4> o{};
  std::size_t pos = 0;
  int count = 0;
  for (; count < 4 && pos <= text.size(); ++count) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6)
      throw std::invalid_argument("offsets: expected k or a,b,c,d (non-negative integers), found '" + text + "'");
    o[count] = std::stoi(part);
    pos = comma + 1;
  }
  if (pos <= text.size()) throw std::invalid_argument("offsets: more than four in '" + text + "'");
  if (count == 1) o = {o[0], o[0], o[0], o[0]};
  else if (count != 4) throw std::invalid_argument("offsets: expected 1 or 4 values, found '" + text + "'");
  return o;
}

std::uint64_t name_seed(std::uint64_t base, const std::string& name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  // Mixing in the base after hashing keeps base 1 and base 2 unrelated for every name.
  h ^= base * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  return h * 0xBF58476D1CE4E5B9ull;
}

double Problem::decode(const std::vector<std::uint8_t>& v, std::int64_t i) const {
  return ref::decode(spec.grad_dtype, &v[i * ref::size_bytes(spec.grad_dtype)]);
}

void parallel_chunks(std::int64_t n, std::int64_t chunk, const std::function<void(std::int64_t, std::int64_t)>& fn) {
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  const int threads = static_cast<int>(std::min<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()), chunks));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (std::int64_t c; (c = next++) < chunks;) {
      try {
        fn(c * chunk, std::min(n, (c + 1) * chunk));
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

namespace {

// A grad's value from its storage bits (8 * size_bytes(d) low bits of `bits`).
double storage_value(ref::Dtype d, std::uint32_t bits) {
  switch (d) {
    case ref::Dtype::fp32: return static_cast<double>(std::bit_cast<float>(bits));
    case ref::Dtype::bf16:
    case ref::Dtype::fp16: return ref::decode16(d, static_cast<std::uint16_t>(bits));
  }
  throw std::logic_error("storage_value: not a grad dtype");
}

}  // namespace

bool counter_source(const ProblemSpec& spec) { return spec.source == AngleSource::randn || spec.source == AngleSource::layout; }

ref::Element Problem::counter_element(std::int64_t i) const {
  if (!counter) throw std::logic_error("problem " + spec.name() + ": not counter-based");
  std::uint32_t a, b;
  ref::counter::normal_grads(spec.seed, static_cast<std::uint64_t>(i), ref::counter::encoding_of(spec.grad_dtype), a, b);
  auto value = [&](std::uint32_t bits) { return storage_value(spec.grad_dtype, bits); };
  const float t = spec.source == AngleSource::randn ? ref::counter::normal_angle(spec.seed, static_cast<std::uint64_t>(i))
                                                    : ref::counter::layout_angle(positions.data(), theta_table.data(), i, spec.head_dim);
  return {value(a), value(b), t};
}

void make_problem(const ProblemSpec& spec, Problem& p) { make_problem(spec, p, true); }

void make_problem(const ProblemSpec& spec, Problem& p, bool host_inputs) {
  const std::int64_t n = spec.n();
  if (n < 0) throw std::invalid_argument("problem " + spec.name() + ": negative size");
  // The worst set's inputs are the committed lists (worst.hpp: suite_problem, worst_cases): a
  // generator's stand-in would judge other elements under its name.
  if (spec.set == "worst") throw std::invalid_argument("problem " + spec.name() + ": the worst set is read from its lists, not generated");
  p.spec = spec;
  const int esize = ref::size_bytes(spec.grad_dtype);
  p.device_only = !host_inputs && counter_source(spec);
  // Every element below n is written in the loop, so reused buffers need no clearing.
  fit(p.gc, p.device_only ? 0 : n * esize);
  fit(p.gs, p.device_only ? 0 : n * esize);
  fit(p.theta, p.device_only ? 0 : n);
  p.positions.clear();
  p.theta_table.clear();
  if (spec.source == AngleSource::layout) {
    const ref::Layout layout =
        spec.layout ? *spec.layout
                    : ref::random_layout(spec.seed, {.batch = static_cast<int>(spec.batch), .seq_len = spec.seq_len, .max_image_side = 128});
    ref::validate(layout);
    if (layout.batch.size() != static_cast<std::size_t>(spec.batch) || layout.seq_len() != spec.seq_len ||
        layout.rope.head_dim != spec.head_dim)
      throw std::invalid_argument("problem " + spec.name() + ": layout shape differs from the problem's");
    if (spec.elements >= 0) throw std::invalid_argument("problem " + spec.name() + ": a layout problem has no flat size");
    p.theta_table = ref::theta_table(layout.rope);
    p.positions.reserve(2 * static_cast<std::size_t>(spec.batch * spec.seq_len));
    for (const auto& seq : layout.batch)
      for (const auto& pos : ref::positions(seq)) {
        p.positions.push_back(static_cast<std::int32_t>(pos.y));
        p.positions.push_back(static_cast<std::int32_t>(pos.x));
      }
  }
  // randn and layout sets (the bulk of every run) come from the counter: element i is a pure
  // function of (seed, i), the same bits on the GPU (device_kernels.cu fills from it).
  p.counter = counter_source(spec);
  if (p.device_only) return;
  if (p.counter) {
    const ref::counter::Encoding enc = ref::counter::encoding_of(spec.grad_dtype);
    parallel_chunks(n, gen_chunk, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        std::uint32_t gc, gs;
        ref::counter::normal_grads(spec.seed, static_cast<std::uint64_t>(i), enc, gc, gs);
        store_bits(p.gc, i, esize, gc);
        store_bits(p.gs, i, esize, gs);
        p.theta[i] = spec.source == AngleSource::randn
                         ? ref::counter::normal_angle(spec.seed, static_cast<std::uint64_t>(i))
                         : ref::counter::layout_angle(p.positions.data(), p.theta_table.data(), i, spec.head_dim);
      }
    });
    return;
  }
  parallel_chunks(n, gen_chunk, [&](std::int64_t begin, std::int64_t end) {
    ref::Random rng(chunk_seed(spec.seed, begin / gen_chunk));
    for (std::int64_t i = begin; i < end; ++i) {
      ref::Element e{};
      switch (spec.source) {
        case AngleSource::randn:
        case AngleSource::layout:
          throw std::logic_error("counter-based sources are made above");
        case AngleSource::regime:
          e = ref::draw(spec.regime, rng, spec.grad_dtype);
          p.theta[i] = e.t;
          break;
        case AngleSource::special:
          e = special_element(i, rng, spec.grad_dtype);
          p.theta[i] = e.t;
          break;
      }
      store(p.gc, i, spec.grad_dtype, e.gc);
      store(p.gs, i, spec.grad_dtype, e.gs);
    }
  });
}

Problem make_problem(const ProblemSpec& spec) {
  Problem p;
  make_problem(spec, p);
  return p;
}

void compute_expected(const Problem& p, Expected& x, bool all_dtypes) {
  const std::int64_t n = p.n();
  // Every element below n is written below, so reused buffers need no clearing.
  fit(x.fp32, n);
  fit(x.scale, n);
  fit(x.bf16, all_dtypes ? n : 0);
  fit(x.fp16, all_dtypes ? n : 0);
  x.stats = {};
  std::mutex stats_mutex;
  parallel_chunks(n, 1 << 16, [&](std::int64_t begin, std::int64_t end) {
    ref::CertifiedStats stats;
    for (std::int64_t i = begin; i < end; ++i) {
      const ref::Element e = p.element(i);
      x.scale[i] = ref::condition_scale(e);
      if (all_dtypes) {
        const ref::Rounded r = ref::certified_backward(e, &stats);
        x.fp32[i] = static_cast<float>(r.fp32);
        x.bf16[i] = ref::encode16(ref::Dtype::bf16, r.bf16);
        x.fp16[i] = ref::encode16(ref::Dtype::fp16, r.fp16);
      } else {
        x.fp32[i] = ref::certified_backward_fp32(e, &stats);
      }
    }
    std::lock_guard lock(stats_mutex);
    x.stats.fast += stats.fast;
    x.stats.fallback += stats.fallback;
  });
}

Expected compute_expected(const Problem& p, bool all_dtypes) {
  Expected x;
  compute_expected(p, x, all_dtypes);
  return x;
}

}  // namespace rope2d::verify
