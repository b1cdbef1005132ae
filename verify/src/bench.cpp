// Timed calls for rope2d bench and rope2d verify --bench (bench.hpp).
#include "rope2d/verify/bench.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace rope2d::verify {

namespace detail {
void launch_io_floor(const void* gc, const void* gs, const float* theta, float* out, std::int64_t n, int grad_dtype,
                     cudaStream_t s);
}  // namespace detail

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void upload(void*& d, const void* h, std::size_t bytes) {
  check(cudaMalloc(&d, bytes), "cudaMalloc");
  check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "upload");
}

std::int64_t shift(int run) { return (run % bench_shifts) * bench_shift_step; }

}  // namespace

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
    : n_(n), grad_bytes_(ref::size_bytes(p.spec.grad_dtype)), grad_dtype_(static_cast<int>(p.spec.grad_dtype)) {
  if (n + (bench_shifts - 1) * bench_shift_step > p.n())
    throw std::invalid_argument("bench problem " + p.spec.name() + " has no room to shift " + std::to_string(n) +
                                " elements");
  try {
    upload(gc_, p.gc.data(), p.gc.size());
    upload(gs_, p.gs.data(), p.gs.size());
    upload(theta_, p.theta.data(), p.theta.size() * 4);
    check(cudaMalloc(&out_, p.theta.size() * 4), "cudaMalloc");
    if (!p.positions.empty()) {
      upload(pos_, p.positions.data(), p.positions.size() * 4);
      upload(table_, p.theta_table.data(), p.theta_table.size() * 4);
    }
  } catch (...) {
    release();
    throw;
  }
}

DeviceInputs::~DeviceInputs() { release(); }

void DeviceInputs::release() {
  for (void* q : {gc_, gs_, theta_, out_, pos_, table_}) cudaFree(q);
  gc_ = gs_ = theta_ = out_ = pos_ = table_ = nullptr;
}

const void* DeviceInputs::gc(int run) const { return static_cast<const char*>(gc_) + shift(run) * grad_bytes_; }
const void* DeviceInputs::gs(int run) const { return static_cast<const char*>(gs_) + shift(run) * grad_bytes_; }
const float* DeviceInputs::theta(int run) const { return static_cast<const float*>(theta_) + shift(run); }
float* DeviceInputs::out(int run) const { return static_cast<float*>(out_) + shift(run); }
const std::int32_t* DeviceInputs::positions(int run) const {
  return static_cast<const std::int32_t*>(pos_) + 2 * (shift(run) / 128);  // (y, x) per token
}

double time_backward(Timer& timer, const BackwardCall& fn, const DeviceInputs& d, const TimingOptions& o) {
  int rc = 0;
  const double ms = timer.median_ms([&](int r, CUstream_st* s) {
    if (const int e = fn(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s); e && !rc) rc = e;
  }, o);
  if (rc) throw std::runtime_error("the timed kernel returned " + std::to_string(rc));
  return ms;
}

double time_fused(Timer& timer, const FusedCall& fn, const DeviceInputs& d, const TimingOptions& o) {
  if (!d.has_positions()) throw std::invalid_argument("time_fused: the problem has no positions (not a layout problem)");
  int rc = 0;
  const std::int64_t tokens = d.n() / 128;
  const double ms = timer.median_ms([&](int r, CUstream_st* s) {
    const int e = fn(d.gc(r), d.gs(r), d.positions(r), d.theta_table(), d.out(r), tokens, 128, d.grad_dtype(), s);
    if (e && !rc) rc = e;
  }, o);
  if (rc) throw std::runtime_error("the timed fused kernel returned " + std::to_string(rc));
  return ms;
}

double time_io_floor(Timer& timer, const DeviceInputs& d, const TimingOptions& o) {
  return timer.median_ms([&](int r, CUstream_st* s) {
    detail::launch_io_floor(d.gc(r), d.gs(r), d.theta(r), d.out(r), d.n(), d.grad_dtype(), s);
  }, o);
}

}  // namespace rope2d::verify
