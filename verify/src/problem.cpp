// Generating problems and computing their expected results with the certified reference.
#include "rope2d/verify/problem.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/random.hpp"

namespace rope2d::verify {

namespace {

constexpr std::int64_t gen_chunk = 1 << 16;

void store(std::vector<std::uint8_t>& v, std::int64_t i, ref::Dtype d, double x) {
  ref::encode(d, x, &v[i * ref::size_bytes(d)]);
}

// Each chunk has its own stream of draws, seeded from the problem's seed and the chunk index.
std::uint64_t chunk_seed(std::uint64_t seed, std::int64_t chunk) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(chunk) * 0xBF58476D1CE4E5B9ull + 1;
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
  if (misalign) s += "+" + std::to_string(misalign);
  return s;
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

Problem make_problem(const ProblemSpec& spec) {
  const std::int64_t n = spec.n();
  if (n < 0) throw std::invalid_argument("problem " + spec.name() + ": negative size");
  Problem p;
  p.spec = spec;
  const int esize = ref::size_bytes(spec.grad_dtype);
  p.gc.resize(n * esize);
  p.gs.resize(n * esize);
  p.theta.resize(n);
  if (spec.source == AngleSource::layout) {
    const ref::Layout layout =
        spec.layout_json.empty()
            ? ref::random_layout(spec.seed, {.batch = static_cast<int>(spec.batch), .seq_len = spec.seq_len, .max_image_side = 128})
            : ref::layout_from_json(spec.layout_json);
    if (layout.batch.size() != static_cast<std::size_t>(spec.batch) || layout.seq_len() != spec.seq_len ||
        layout.rope.head_dim != spec.head_dim)
      throw std::invalid_argument("problem " + spec.name() + ": layout shape differs from the problem's");
    p.theta = ref::angles(layout);
    p.theta_table = ref::theta_table(layout.rope);
    for (const auto& seq : layout.batch)
      for (const auto& pos : ref::positions(seq)) {
        p.positions.push_back(static_cast<std::int32_t>(pos.y));
        p.positions.push_back(static_cast<std::int32_t>(pos.x));
      }
  }
  parallel_chunks(n, gen_chunk, [&](std::int64_t begin, std::int64_t end) {
    ref::Random rng(chunk_seed(spec.seed, begin / gen_chunk));
    for (std::int64_t i = begin; i < end; ++i) {
      ref::Element e{};
      switch (spec.source) {
        case AngleSource::randn:
          e = ref::draw(ref::Regime::randn, rng, spec.grad_dtype);
          p.theta[i] = e.t;
          break;
        case AngleSource::layout:
          e = {ref::round_to(spec.grad_dtype, rng.normal()), ref::round_to(spec.grad_dtype, rng.normal()), p.theta[i]};
          break;
        case AngleSource::regime:
          e = ref::draw(spec.regime, rng, spec.grad_dtype);
          p.theta[i] = e.t;
          break;
      }
      store(p.gc, i, spec.grad_dtype, e.gc);
      store(p.gs, i, spec.grad_dtype, e.gs);
    }
  });
  return p;
}

Expected compute_expected(const Problem& p, bool all_dtypes) {
  const std::int64_t n = p.n();
  Expected x;
  x.fp32.resize(n);
  x.scale.resize(n);
  if (all_dtypes) {
    x.bf16.resize(n);
    x.fp16.resize(n);
  }
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
  return x;
}

}  // namespace rope2d::verify
