// Timed calls for rope2d bench and rope2d verify --bench (bench.hpp).
#include "rope2d/verify/bench.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <vector>
#include "device_kernels.hpp"

namespace rope2d::verify {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

std::int64_t shift(int run) { return (run % bench_shifts) * bench_shift_step; }

}  // namespace

double workload_bytes(const Workload& w) { return 12.0 * w.batch * w.seq_len * 128; }

SolAnchors workload_anchors(std::size_t k) {
  std::vector<double> bytes;
  for (const Workload& w : benchmark_workloads()) bytes.push_back(workload_bytes(w));
  return sol_anchors(bytes.at(k), geomean(bytes));
}

Problem bench_problem(AngleSource src, std::int64_t batch, std::int64_t seq_len, std::uint64_t seed) {
  ProblemSpec spec;
  spec.set = src == AngleSource::layout ? "layout" : "randn";
  spec.source = src;
  spec.seed = seed;
  if (src == AngleSource::layout) {
    spec.batch = batch;
    spec.seq_len = seq_len + bench_shifts * bench_shift_step / spec.head_dim;  // whole tokens of slack
  } else {
    spec.elements = batch * seq_len * spec.head_dim + bench_shifts * bench_shift_step;
  }
  return make_problem(spec);
}

DeviceInputs::DeviceInputs(const Problem& p, std::int64_t n)
    : n_(n), grad_bytes_(ref::size_bytes(p.spec.grad_dtype)), grad_dtype_(ref::abi_code(p.spec.grad_dtype)) {
  if (n + (bench_shifts - 1) * bench_shift_step > p.n())
    throw std::invalid_argument("bench problem " + p.spec.name() + " has no room to shift " + std::to_string(n) +
                                " elements");
  // One allocation carved into 256-byte aligned buffers, the way a framework's caching
  // allocator places a call's tensors (small ones share one 2 MiB segment), rather than a
  // cudaMalloc each.
  const std::size_t sizes[] = {p.gc.size(),         p.gs.size(),           p.theta.size() * 4,
                               p.theta.size() * 4,  p.positions.size() * 4, p.theta_table.size() * 4};
  const void* sources[] = {p.gc.data(), p.gs.data(), p.theta.data(), nullptr, p.positions.data(), p.theta_table.data()};
  void** slots[] = {&gc_, &gs_, &theta_, &out_, &pos_, &table_};
  auto padded = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  std::size_t total = 0;
  for (std::size_t bytes : sizes) total += padded(bytes);
  check(cudaMalloc(&arena_, total), "cudaMalloc");
  char* at = static_cast<char*>(arena_);
  for (int k = 0; k < 6; ++k) {
    if (sizes[k] == 0) continue;
    *slots[k] = at;
    at += padded(sizes[k]);
    if (sources[k] && cudaMemcpy(*slots[k], sources[k], sizes[k], cudaMemcpyHostToDevice) != cudaSuccess) {
      cudaFree(arena_);
      throw std::runtime_error("upload of bench problem " + p.spec.name() + " failed");
    }
  }
}

DeviceInputs::~DeviceInputs() { cudaFree(arena_); }

const void* DeviceInputs::gc(int run) const { return static_cast<const char*>(gc_) + shift(run) * grad_bytes_; }
const void* DeviceInputs::gs(int run) const { return static_cast<const char*>(gs_) + shift(run) * grad_bytes_; }
const float* DeviceInputs::theta(int run) const { return static_cast<const float*>(theta_) + shift(run); }
float* DeviceInputs::out(int run) const { return static_cast<float*>(out_) + shift(run); }
const std::int32_t* DeviceInputs::positions(int run) const {
  return static_cast<const std::int32_t*>(pos_) + 2 * (shift(run) / 128);  // (y, x) per token
}

Timing time_backward(Timer& timer, const BackwardCall& fn, const DeviceInputs& d, const TimingOptions& o) {
  int rc = 0;
  const Timing t = timer.time([&](int r, CUstream_st* s) {
    if (const int e = fn(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s); e && !rc) rc = e;
  }, o);
  if (rc) throw std::runtime_error("the timed kernel returned " + std::to_string(rc));
  return t;
}

Timing time_fused(Timer& timer, const FusedCall& fn, const DeviceInputs& d, const TimingOptions& o) {
  if (!d.has_positions()) throw std::invalid_argument("time_fused: the problem has no positions (not a layout problem)");
  int rc = 0;
  const std::int64_t tokens = d.n() / 128;
  const Timing t = timer.time([&](int r, CUstream_st* s) {
    const int e = fn(d.gc(r), d.gs(r), d.positions(r), d.theta_table(), d.out(r), tokens, 128, d.grad_dtype(), s);
    if (e && !rc) rc = e;
  }, o);
  if (rc) throw std::runtime_error("the timed fused kernel returned " + std::to_string(rc));
  return t;
}

Timing time_io_floor(Timer& timer, const DeviceInputs& d, const TimingOptions& o) {
  return timer.time([&](int r, CUstream_st* s) {
    detail::launch_io_floor(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s);
  }, o);
}

}  // namespace rope2d::verify
