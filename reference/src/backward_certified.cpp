// The certified double path of the exact backward: the enclosure and its rounding decision
// are in certified_enclosure.hpp (shared with the GPU judge, with the margin's derivation for
// glibc's and CUDA's sincos); this file adds the bf16/fp16 decision and the MPFR fallback.
// The MPFR path settles the elements this enclosure cannot; tests compare both bit for bit.
#include <bit>
#include <cmath>

#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/certified_enclosure.hpp"

namespace rope2d::ref {

namespace {

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

inline void count(CertifiedStats* stats, bool fast) {
  if (stats) ++(fast ? stats->fast : stats->fallback);
}

}  // namespace

Rounded certified_backward(const Element& e, CertifiedStats* stats) {
  if (is_special(e)) {
    const double v = *special_value(e);
    count(stats, true);
    return {round_to(Dtype::fp32, v), round_to(Dtype::bf16, v), round_to(Dtype::fp16, v)};
  }
  const Enclosure x = enclose(e.gc, e.gs, e.t);
  Rounded lo{round_to(Dtype::fp32, x.lo), round_to(Dtype::bf16, x.lo), round_to(Dtype::fp16, x.lo)};
  Rounded hi{round_to(Dtype::fp32, x.hi), round_to(Dtype::bf16, x.hi), round_to(Dtype::fp16, x.hi)};
  const bool decided = same_bits(lo.fp32, hi.fp32) && same_bits(lo.bf16, hi.bf16) &&
                       same_bits(lo.fp16, hi.fp16);
  count(stats, decided);
  return decided ? lo : exact_backward(e);
}

float certified_backward_fp32(const Element& e, CertifiedStats* stats) {
  if (is_special(e)) {
    count(stats, true);
    return static_cast<float>(*special_value(e));
  }
  float r;
  const bool decided = decide_fp32(enclose(e.gc, e.gs, e.t), &r);
  count(stats, decided);
  return decided ? r : static_cast<float>(exact_backward(e).fp32);
}

}  // namespace rope2d::ref
