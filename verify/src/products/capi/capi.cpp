// The C ABI's reference and judging of raw arrays, both through the same Problem /
// compute_expected path and the judge's SetTally the verifier uses, so a binding adds no
// numerics.
#include "rope2d/verify/products/capi.h"

#include <cmath>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "products/capi/common.hpp"
#include "rope2d/verify/judge/judge.hpp"
#include "rope2d/verify/model/metrics.hpp"
#include "rope2d/verify/model/mismatch.hpp"

namespace rope2d::verify::capi {

thread_local std::string last_error;

char* dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// capi.h's dtype codes are the submission ABI's (rope2d_backward.h, through each traits row):
// one code per dtype, whichever header a caller reads (the Python package's DTYPE_CODE serves
// both).
static_assert(ROPE2D_DT_BF16 == ref::abi_code(ref::Dtype::bf16) && ROPE2D_DT_FP16 == ref::abi_code(ref::Dtype::fp16) &&
              ROPE2D_DT_FP32 == ref::abi_code(ref::Dtype::fp32));

ref::Dtype dtype_arg(int d, const char* what) {
  switch (d) {
    case ROPE2D_DT_BF16: return ref::Dtype::bf16;
    case ROPE2D_DT_FP16: return ref::Dtype::fp16;
    case ROPE2D_DT_FP32: return ref::Dtype::fp32;
  }
  throw std::invalid_argument(std::string(what) + ": expected 0 (bf16), 1 (fp16) or 2 (fp32), found " + std::to_string(d));
}

Tier tier_arg(const char* t) {
  std::string deprecation;
  const auto tier = parse_tier(t ? t : "", &deprecation);
  if (!tier) throw std::invalid_argument("tier: expected " + tier_names() + ", found '" + (t ? t : "") + "'");
  if (!deprecation.empty()) std::cerr << deprecation << "\n";
  return *tier;
}

// JSON has no infinity: a non-finite error crosses as the string "inf".
nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json("inf"); }

nlohmann::json metrics_json(const Metrics& m, Tier gate, const std::string& set, std::span<const std::int64_t> shape) {
  nlohmann::json tiers = nlohmann::json::object();
  for (Tier t : all_tiers)
    tiers[std::string(name(t))] = {{"over", m.over[static_cast<int>(t)]}, {"passed", m.passes(t)},
                                   {"required_ratio", rule(t).ratio}};
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : m.failures) failures.push_back(f.line(set));
  const std::vector<std::string> mismatch = m.passes(gate) ? std::vector<std::string>{} : mismatch_lines(m, gate, shape);
  return {{"count", m.count},
          {"max_scaled", number(m.max_scaled)},
          {"rms_scaled", number(m.rms_scaled())},
          {"max_ulp", number(m.max_ulp)},
          {"correctly_rounded", m.correctly_rounded},
          {"nonfinite_mismatch", m.nonfinite_mismatch},
          {"poisoned", m.poisoned},
          {"all_zero", m.all_zero},
          {"gate", std::string(name(gate))},
          {"passed", m.passes(gate)},
          {"tiers", tiers},
          {"subnormal_mode", m.subnormal_mode()},
          {"overflow_accepted", m.overflow_accepted},
          {"failures", failures},
          {"mismatch", mismatch},
          {"worst", m.worst ? nlohmann::json(m.worst->line(set, "worst")) : nlohmann::json()}};
}

std::vector<std::int64_t> shape_arg(const std::int64_t* shape, int rank) {
  if (rank < 0 || rank > 8) throw std::invalid_argument("rank: expected 0 to 8, found " + std::to_string(rank));
  if (rank > 0 && !shape) throw std::invalid_argument("shape: null pointer");
  std::vector<std::int64_t> dims(shape, shape + rank);
  std::int64_t n = 1;
  for (int k = 0; k < rank; ++k) {
    if (dims[k] < 0 || (dims[k] > 0 && n > INT64_MAX / dims[k]))
      throw std::invalid_argument("shape[" + std::to_string(k) + "]: expected a size >= 0 whose product fits int64, found " +
                                  std::to_string(dims[k]));
    n *= dims[k];
  }
  return dims;
}

Problem problem_from(const void* gc, const void* gs, const float* theta, std::int64_t n, int grad_dtype) {
  if (n < 0) throw std::invalid_argument("n: expected >= 0, found " + std::to_string(n));
  if (n > 0 && (!gc || !gs || !theta)) throw std::invalid_argument("inputs: null pointer");
  Problem p;
  p.spec.set = "check";
  p.spec.grad_dtype = dtype_arg(grad_dtype, "grad_dtype");
  p.spec.elements = n;
  const std::size_t bytes = static_cast<std::size_t>(n) * ref::size_bytes(p.spec.grad_dtype);
  p.gc.assign(static_cast<const std::uint8_t*>(gc), static_cast<const std::uint8_t*>(gc) + bytes);
  p.gs.assign(static_cast<const std::uint8_t*>(gs), static_cast<const std::uint8_t*>(gs) + bytes);
  p.theta.assign(theta, theta + n);
  return p;
}

}  // namespace rope2d::verify::capi

using namespace rope2d;
using namespace rope2d::verify;
using namespace rope2d::verify::capi;

extern "C" {

const char* rope2d_capi_version(void) { return "3"; }
const char* rope2d_version(void) { return ROPE2D_VERSION_FULL; }
const char* rope2d_last_error(void) { return last_error.c_str(); }
void rope2d_free(char* text) { std::free(text); }

int rope2d_reference(const void* gc, const void* gs, const float* theta, int64_t n, int grad_dtype, int out_dtype, void* out) {
  return guarded([&] {
    const ref::Dtype od = dtype_arg(out_dtype, "out_dtype");
    if (n > 0 && !out) throw std::invalid_argument("out: null pointer");
    const Problem p = problem_from(gc, gs, theta, n, grad_dtype);
    const Expected x = compute_expected(p, od != ref::Dtype::fp32);
    switch (od) {
      case ref::Dtype::fp32: std::memcpy(out, x.fp32.data(), n * sizeof(float)); break;
      case ref::Dtype::bf16: std::memcpy(out, x.bf16.data(), n * sizeof(std::uint16_t)); break;
      case ref::Dtype::fp16: std::memcpy(out, x.fp16.data(), n * sizeof(std::uint16_t)); break;
    }
  });
}

int rope2d_check(const float* out, const void* gc, const void* gs, const float* theta, const int64_t* shape, int rank,
                 int grad_dtype, const char* gate_tier, const char* set_name, int max_failures, int ieee_subnormals, char** json) {
  return guarded([&] {
    const Tier gate = tier_arg(gate_tier);
    if (!json) throw std::invalid_argument("json: null pointer");
    const std::vector<std::int64_t> dims = shape_arg(shape, rank);
    std::int64_t n = 1;
    for (std::int64_t d : dims) n *= d;
    if (n > 0 && !out) throw std::invalid_argument("out: null pointer");
    const Problem p = problem_from(gc, gs, theta, n, grad_dtype);
    const std::string set = set_name && *set_name ? set_name : "check";
    // One round of a set: its verdicts by tier are those of the round (metrics_json).
    SetTally t({set, "check", p.spec.grad_dtype}, p.spec.grad_dtype, gate,
               ieee_subnormals ? Subnormals::ieee : Subnormals::flush_allowed, static_cast<std::size_t>(std::max(max_failures, 0)));
    *json = dup(metrics_json(t.round(p, compute_expected(p), out), gate, set, dims).dump());
  });
}

}  // extern "C"
