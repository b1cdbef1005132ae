// The fresh GPU fill of a problem's inputs and the checks against it (fresh_inputs.hpp).
#include "harness/testbed/fresh_inputs.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "rope2d/ref/counter_random.hpp"
#include "rope2d/verify/judge/gpu_check.hpp"
#include "harness/testbed/device_kernels.hpp"

namespace rope2d::verify::detail {

FreshInputs::~FreshInputs() {
  if (!mem_.lost && sample_) cudaFree(sample_);
}

void FreshInputs::make(const Problem& p) {
  if (filled_ == &p) return;
  filled_ = nullptr;  // a fill that throws half way is no fill
  mem_.make_inputs(p, gc_, gs_, &theta_, false, positions_, table_);
  filled_ = &p;
}

std::function<void(const float*)> FreshInputs::judging(const Problem& p, const Judge& judge) {
  if (!judge) return {};
  if (!p.counter) throw std::invalid_argument(p.spec.name() + ": judging on the GPU needs a counter-based problem");
  return [this, &p, &judge](const float* o) {
    make(p);
    judge({gc_.data(), gs_.data(), reinterpret_cast<const float*>(theta_.data()), o, p.n(), ref::abi_code(p.spec.grad_dtype)},
          mem_.stream);
  };
}

std::string FreshInputs::counter_mismatch(const Problem& p) {
  make(p);
  const std::pair<const Buffer*, const void*> pairs[] = {{&gc_, p.gc.data()}, {&gs_, p.gs.data()}, {&theta_, p.theta.data()}};
  const char* names[] = {"grad_cos", "grad_sin", "idx_theta"};
  for (int k = 0; k < 3; ++k) {
    const Buffer& b = *pairs[k].first;
    std::vector<unsigned char>& back = mem_.back;
    back.resize(b.bytes);
    check(cudaMemcpyAsync(back.data(), b.data(), b.bytes, cudaMemcpyDeviceToHost, mem_.stream), "copy back made input");
    check(cudaStreamSynchronize(mem_.stream), "sync");
    const auto* host = static_cast<const unsigned char*>(pairs[k].second);
    const auto at = std::mismatch(back.begin(), back.end(), host).first - back.begin();
    if (static_cast<std::size_t>(at) < b.bytes) {
      const std::size_t es = k == 2 ? 4 : ref::size_bytes(p.spec.grad_dtype);
      return std::string(names[k]) + " element " + std::to_string(at / es) + " of " + p.spec.name() + " (seed " +
             std::to_string(p.spec.seed) + ")";
    }
  }
  return "";
}

std::string FreshInputs::cross_check(const Problem& p, const DeviceArrays& a, int k) {
  const std::int64_t n = p.n();
  if (n == 0 || k <= 0) return "";
  const int es = ref::size_bytes(p.spec.grad_dtype);
  // Indices from the counter (its own stream, 2): the first and last element, then drawn.
  std::vector<std::int64_t> idx(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j) {
    const ref::counter::Block w = ref::counter::philox4x32_10(
        ref::counter::Block{{static_cast<std::uint32_t>(j), 0u, 2u, 0u}}, static_cast<std::uint32_t>(p.spec.seed),
        static_cast<std::uint32_t>(p.spec.seed >> 32));
    const std::uint64_t r = (static_cast<std::uint64_t>(w.x[0]) << 32) | w.x[1];
    idx[j] = j == 0 ? 0 : j == 1 ? n - 1 : static_cast<std::int64_t>(r % static_cast<std::uint64_t>(n));
  }
  const std::size_t need = static_cast<std::size_t>(k) * (8 + 2 * 4 + 4 + 4);
  if (k > sample_capacity_) {
    if (sample_) check(cudaFree(sample_), "cudaFree");
    sample_ = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&sample_), need), "cudaMalloc");
    sample_capacity_ = k;
  }
  auto* d_idx = reinterpret_cast<std::int64_t*>(sample_);
  unsigned char* d_gc = sample_ + 8 * k;
  unsigned char* d_gs = d_gc + 4 * k;
  auto* d_theta = reinterpret_cast<float*>(d_gs + 4 * k);
  auto* d_out = d_theta + k;
  check(cudaMemcpyAsync(d_idx, idx.data(), 8 * k, cudaMemcpyHostToDevice, mem_.stream), "copy sample indices");
  detail::launch_gather(a.gc, a.gs, a.theta, es, d_idx, k, d_gc, d_gs, d_theta, mem_.stream);
  // An output every element fails by far, so that each settled one comes back with its reference.
  detail::launch_fill32(reinterpret_cast<std::uint32_t*>(d_out), k, std::bit_cast<std::uint32_t>(0x1p100f), mem_.stream);
  check(cudaGetLastError(), "sample launch");
  CheckOptions o;
  o.gate = Tier::float32_bound;
  o.max_records = static_cast<std::size_t>(k);
  o.max_deferred = k;
  const CheckPass pass = gpu_check_device({d_gc, d_gs, d_theta, d_out, k, a.grad_dtype}, o, mem_.stream);
  Problem q;  // the gathered inputs, as the GPU made them
  q.spec = p.spec;
  q.spec.elements = k;
  q.gc.resize(static_cast<std::size_t>(k) * es);
  q.gs.resize(static_cast<std::size_t>(k) * es);
  q.theta.resize(static_cast<std::size_t>(k));
  check(cudaMemcpyAsync(q.gc.data(), d_gc, q.gc.size(), cudaMemcpyDeviceToHost, mem_.stream), "copy sample");
  check(cudaMemcpyAsync(q.gs.data(), d_gs, q.gs.size(), cudaMemcpyDeviceToHost, mem_.stream), "copy sample");
  check(cudaMemcpyAsync(q.theta.data(), d_theta, 4 * q.theta.size(), cudaMemcpyDeviceToHost, mem_.stream), "copy sample");
  check(cudaStreamSynchronize(mem_.stream), "sync");
  auto where = [&](int j) { return p.spec.name() + " element " + std::to_string(idx[j]) + " (seed " + std::to_string(p.spec.seed) + ")"; };
  auto same = [](double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); };
  for (int j = 0; j < k; ++j) {  // the GPU's inputs are the CPU's (the counter, on the host)
    const ref::Element want = p.element(idx[j]), got = q.element(j);
    if (!same(want.gc, got.gc) || !same(want.gs, got.gs) || std::bit_cast<std::uint32_t>(want.t) != std::bit_cast<std::uint32_t>(got.t))
      return "GPU-made input differs from the CPU's at " + where(j);
  }
  if (static_cast<std::int64_t>(pass.failures.size()) + pass.deferred_total != k)
    return "GPU comparison of the sample of " + p.spec.name() + " returned " + std::to_string(pass.failures.size()) + " records and " +
           std::to_string(pass.deferred_total) + " deferred of " + std::to_string(k);
  const Expected x = compute_expected(q);  // the CPU certified path
  for (const CheckRecord& r : pass.failures) {
    const auto j = static_cast<int>(r.index);
    if (std::bit_cast<std::uint32_t>(r.ref) != std::bit_cast<std::uint32_t>(x.fp32[j]))
      return "GPU reference " + fmt_hex(r.ref) + " differs from the CPU certified " + fmt_hex(x.fp32[j]) + " at " + where(j);
  }
  return "";
}

}  // namespace rope2d::verify::detail
