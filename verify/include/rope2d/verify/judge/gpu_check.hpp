// The comparison on the GPU: a kernel's float32 outputs judged against the certified
// reference on the device, with only summaries, the first failing elements and the elements
// the GPU cannot settle copied back; the CPU judge (metrics.cpp) settles those, so the result
// is the Metrics compare() gives on the same inputs.
//
// Contract of the device pass (gpu_check_device, verify/src/judge/gpu_check/kernel.cu). Given device arrays gc, gs
// (grad dtype bf16/fp16/fp32), theta and out (float32) of n elements, for each element it
// computes the certified float32 reference (certified_enclosure.hpp, CUDA's double sincos;
// the margin covers its documented error 4 times over), S = |a| + |b| of the enclosure's
// terms, the error in units of 2^-24 S and in ulps, and every tier's verdict
// (tolerance_core.hpp), and reduces them to a CheckPartial: count, correctly rounded, over per
// tier, histograms, sum of squares, max error and ulps, the worst element (ties: the lowest
// index). It sends to the CPU (the `deferred` list: index and got) every element whose verdict
// it cannot give exactly as the CPU judge would:
//   * special inputs (NaN, Inf, t = ±0, both grads zero; backward.hpp), except a NaN
//     reference met by a NaN with no subnormal value taking part;
//   * a non-finite output (NaN, Inf, the poison pattern) where the inputs are finite;
//   * an undecided enclosure (the CPU's MPFR path) or an infinite reference (overflow.cpp);
//   * an element where a subnormal value takes part (flush.hpp) whose IEEE verdict fails a
//     tier (the flushed alternatives of flush.cpp decide it);
//   * a verdict within 2^-40 (relative) of its threshold, where CUDA's and glibc's sincos,
//     a few ulps of double apart, could decide it differently.
// Settled elements are counted in the partial; deferred ones are not. Failures (over the gate
// tier) are recorded with the lowest indices: all of them when there are at most `max_records`,
// else every failure below some index (at least a quarter of max_records, at most all of it;
// the device pass judges prefixes again, by bisection, to find that index). Deferred elements
// are recorded up to `max_deferred`: past it `deferred_complete` is false and the caller must
// judge the whole range on the CPU. settle() turns the pass into Metrics: the partial, the
// failures, and compare() over the deferred elements, rebuilt by the caller's lookup.
//
// host_check() runs the same per-element code (judge/gpu_check/element.hpp) on the host, with
// glibc's sincos, for the CPU tests and for machines without a GPU; gpu_compare() is the
// host-vector entry that copies a Problem to the device and calls the device pass.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rope2d/verify/judge/gpu_check_types.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/problem.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::verify {

struct CheckPass {
  CheckPartial total;
  // The worst element of each block (device) or piece (host) of the pass, largest error first,
  // at most max_candidates: a worst-case list's candidates (not strictly the pass's top K:
  // two of those may share a block).
  std::vector<CheckRecord> candidates;
  std::vector<CheckRecord> failures;     // over the gate tier, the lowest indices, at most max_records
  std::int64_t failures_total = 0;       // all settled failures
  std::vector<DeferredElement> deferred;
  std::int64_t deferred_total = 0;
  bool deferred_complete = true;         // every deferred element is in `deferred`
};

struct CheckOptions {
  Tier gate = Tier::float32_bound;
  std::size_t max_records = 1024;        // failures kept (the first max_failures of them are reported)
  std::int64_t max_deferred = std::int64_t{1} << 22;
  std::int64_t index_base = 0;           // added to every index (a chunk of a larger range)
  std::size_t max_candidates = 0;        // worst-case candidates kept (CheckPass::candidates)
};


// The device pass (judge/gpu_check/kernel.cu). Synchronises `stream` (a cudaStream_t, or null for the
// default stream); throws std::runtime_error on a CUDA error. Needs CUDA: a build without it
// has no definition.
CheckPass gpu_check_device(const DeviceArrays& a, const CheckOptions& o, void* stream = nullptr);

// The same pass on the host, over host arrays, from the same per-element source.
CheckPass host_check(const void* gc, const void* gs, const float* theta, const float* out, std::int64_t n,
                     ref::Dtype grad_dtype, const CheckOptions& o);

// Keeps the k largest scaled errors of `records`, largest first (ties: the lowest index).
void keep_worst(std::vector<CheckRecord>& records, std::size_t k);

// Rebuilds the inputs of element `index` (as CheckOptions::index_base + i counts them).
using ElementLookup = std::function<ref::Element(std::int64_t index)>;

// The pass as compare() reports it: the GPU's partial, its failures (first max_failures, in
// index order) and the deferred elements judged on the CPU (compare() on them, MPFR and the
// flushed alternatives included). Throws std::logic_error when !deferred_complete.
Metrics settle(const CheckPass& pass, const ElementLookup& lookup, Tier gate, std::size_t max_failures = max_failures_kept,
               Subnormals subnormals = Subnormals::flush_allowed);

// A Problem judged on the host twin (host_check + settle), and on the GPU (copied over,
// gpu_check_device, settle; the whole problem through compare() where too much was deferred).
Metrics host_compare(const Problem& p, const float* out, Tier gate, std::size_t max_failures = max_failures_kept,
                     Subnormals subnormals = Subnormals::flush_allowed);
Metrics gpu_compare(const Problem& p, const float* out, Tier gate, std::size_t max_failures = max_failures_kept,
                    Subnormals subnormals = Subnormals::flush_allowed);

}  // namespace rope2d::verify
