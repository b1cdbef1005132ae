// One element of the GPU comparison (gpu_check.hpp), for the device and its host twin from one
// source (ROPE2D_HD): the certified reference, the error in units of 2^-24 S and in ulps, and
// the verdict of every tier, or "defer" where the CPU judge must settle it (see the contract in
// gpu_check.hpp). Every number is the one metrics.cpp computes, through the same functions
// (certified_enclosure.hpp, tolerance_core.hpp).
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rope2d/ref/certified_enclosure.hpp"
#include "rope2d/verify/judge/gpu_check_types.hpp"
#include "rope2d/verify/model/tolerance_core.hpp"

namespace rope2d::verify::gpucheck {

// A verdict is settled on the GPU only when it is at least this far (relative) from each
// threshold it is tested against: S and the products come from CUDA's sincos on the device
// and from glibc's on the host, which differ by a few ulps of double (2^-50 relative at most),
// so a verdict nearer its threshold than 2^-40 could differ between the two. The same holds
// for every discrete thing derived from S: tiers, subnormal products and histogram bins.
inline constexpr double borderline = 0x1p-40;

// Element i of a grad array of ABI code grad_dtype (ROPE2D_GRAD_*, one the caller took from
// ref::abi_code), exactly. The switch is over the header's enum with no default: a code added
// there without its decoding is a compile error in the host twin (-Werror=switch).
ROPE2D_HD inline double decode_grad(const void* p, int64_t i, int grad_dtype) {
  const unsigned char* base = static_cast<const unsigned char*>(p);
  uint16_t h;
  switch (static_cast<decltype(ROPE2D_GRAD_BF16)>(grad_dtype)) {
    case ROPE2D_GRAD_FP32: {
      float f;
      memcpy(&f, base + 4 * i, 4);
      return f;
    }
    case ROPE2D_GRAD_BF16: {
      memcpy(&h, base + 2 * i, 2);
      const uint32_t w = static_cast<uint32_t>(h) << 16;
      float f;
      memcpy(&f, &w, 4);
      return f;
    }
    case ROPE2D_GRAD_FP16: {
      memcpy(&h, base + 2 * i, 2);
      const int e = (h >> 10) & 31, m = h & 1023;  // exact in double
      const double v = e == 0 ? ldexp(static_cast<double>(m), -24)
                     : e == 31 ? (m ? NAN : INFINITY)
                               : ldexp(static_cast<double>(m + 1024), e - 25);
      return (h & 0x8000) ? -v : v;
    }
  }
  return NAN;  // no code of the header
}

ROPE2D_HD inline uint32_t float_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

struct Verdict {
  bool defer = false;       // the CPU judge settles it (nothing below is to be read)
  bool bit_equal = false;   // bit-equal to the reference (NaN for NaN included)
  bool subnormal_ieee = false;  // a subnormal value takes part and the IEEE evaluation fits
  bool correctly_rounded = false;
  bool nonzero_ref = false, nonzero_out = false;
  bool norm_ref = false, norm_out = false;  // core::sxb_norm_nonzero of each (SOL-ExecBench's all-zero test)
  core::SxbErrors sxb = {0, 0};             // SOL-ExecBench's reported errors
  bool nan = false;                         // NaN for a NaN reference (settled elements are otherwise finite)
  float ref = 0;
  double scaled = 0, ulps = 0;  // of an element that is not bit-equal
  unsigned over = 0;            // bit k: over tier k's allowance
};

ROPE2D_HD inline bool near_threshold(double x, double threshold) { return fabs(x - threshold) <= borderline * threshold; }

// The error histogram's bin edges (core::error_bin) are thresholds too: a scaled error that
// near a power of two could fall in the next bin on the other side (a scaled error of exactly
// 2^8 is common: a grad that is a power of two, cos t = 1 and an error of whole ulps).
ROPE2D_HD inline bool near_bin_edge(double scaled) {
  if (!(scaled > 0) || !isfinite(scaled)) return false;
  const int e = ilogb(scaled);  // between the edges 2^e and 2^(e+1)
  return (e >= core::error_bin_low && e <= core::error_bin_high && near_threshold(scaled, ldexp(1.0, e))) ||
         (e + 1 >= core::error_bin_low && e + 1 <= core::error_bin_high && near_threshold(scaled, ldexp(1.0, e + 1)));
}

// The special cases (backward.hpp: a non-finite input, t = 0, both grads zero): only a NaN
// reference met by a NaN is settled here, where no subnormal value takes part; signed zeros and
// infinite grads go to the CPU.
ROPE2D_HD inline Verdict judge_special(double gc, double gs, float t, float got) {
  Verdict v;
  const bool nan_ref = isnan(gc) || isnan(gs) || isnan(t) || isinf(t);
  if (!nan_ref || !isnan(got) || core::may_involve_subnormal(gc, gs, t, NAN)) {
    v.defer = true;
    return v;
  }
  v.bit_equal = v.correctly_rounded = true;
  v.nonzero_ref = v.nonzero_out = true;  // NaN != 0
  v.nan = true;                          // right here, and a failure under SOL-ExecBench's rules
  v.ref = NAN;
  return v;
}

// Whether a product gc sin t or gs cos t lies near the product window (where it may be
// subnormal in float32), or the reference near the result window (tolerance_core.hpp, a
// threshold in S and |gc| too): whether a subnormal value takes part could then differ between
// the device and the host.
ROPE2D_HD inline bool near_subnormal_window(double gc, double gs, float t, float ref, double scale, double s, double c) {
  const double thr = core::product_window;
  if ((gc != 0 && s != 0 && near_threshold(fabs(gc * s), thr)) || (gs != 0 && c != 0 && near_threshold(fabs(gs * c), thr)))
    return true;
  const double margin = core::result_window_margin(ref, scale, gc, core::subnormal_terms(gc, gs, t, s, c));
  return ref != 0 && fabs(margin) <= borderline * (fabs(ref) + core::tiny + core::bound_c * core::u24 * scale);
}

// The judgement metrics.cpp's compare() makes of (gc, gs, t) -> got, or defer, given s and c:
// sin t and cos t from the caller's double sincos (within the margin certified_enclosure.hpp
// states). Every settled verdict is the same for any s and c within that margin.
ROPE2D_HD inline Verdict judge_with(double gc, double gs, float t, float got, double s, double c) {
  Verdict v;
  const bool finite = isfinite(gc) && isfinite(gs) && isfinite(t);
  if (!finite || t == 0 || (gc == 0 && gs == 0)) return judge_special(gc, gs, t, got);
  if (!isfinite(got)) {
    v.defer = true;  // NaN, Inf, the poison pattern: the CPU classifies them
    return v;
  }
  const ref::Enclosure x = ref::enclose_terms(gc, gs, s, c);
  float ref;
  if (!ref::decide_fp32(x, &ref) || !isfinite(ref)) {
    v.defer = true;  // undecided (MPFR) or overflowing (reference/overflow.hpp)
    return v;
  }
  v.ref = ref;
  v.nonzero_ref = ref != 0;
  v.nonzero_out = got != 0;
  v.norm_ref = core::sxb_norm_nonzero(ref);
  v.norm_out = core::sxb_norm_nonzero(got);
  const double scale = fabs(x.a) + fabs(x.b);  // condition_scale(): |gc sin t| + |gs cos t|
  bool sub = false;
  if (core::may_involve_subnormal(gc, gs, t, ref)) {
    if (near_subnormal_window(gc, gs, t, ref, scale, s, c)) {
      v.defer = true;
      return v;
    }
    sub = core::involves_subnormal(gc, gs, t, ref, s, c);
  }
  v.sxb = core::sxb_errors(got, ref);
  if (float_bits(ref) == float_bits(got)) {
    v.bit_equal = v.correctly_rounded = true;
    v.subnormal_ieee = sub;
    return v;
  }
  const double err = fabs(static_cast<double>(got) - ref);
  for (int k = 0; k < tier_count; ++k) {
    const core::TierCoeffs tier = core::tier_coeffs(static_cast<Tier>(k));
    if (tier.rules.element == ElementTest::float32_atol_rtol) {  // float32 values only: the same on both sides, never near a threshold
      if (core::atol_rtol_over(tier, got, ref)) v.over |= 1u << k;
      continue;
    }
    const double allow = core::allowance(tier, ref, scale, gc);
    if (near_threshold(err, allow)) {
      v.defer = true;
      return v;
    }
    if (!(err <= allow)) v.over |= 1u << k;
  }
  if (sub) {
    if (v.over != 0) {
      v.defer = true;  // flushed alternatives may pass it (flush.cpp)
      return v;
    }
    v.subnormal_ieee = true;
  }
  v.scaled = err / (core::u24 * scale);  // scale > 0: not a special case
  if (near_bin_edge(v.scaled)) {
    v.defer = true;
    return v;
  }
  v.ulps = err / core::ulp_of(ref);
  v.correctly_rounded = ref == 0 && got == 0;  // ±0 against ∓0 counts as right
  return v;
}

// The judgement with this side's sincos: CUDA's on the device, glibc's on the host.
ROPE2D_HD inline Verdict judge(double gc, double gs, float t, float got) {
  double s, c;
  sincos(static_cast<double>(t), &s, &c);
  return judge_with(gc, gs, t, got, s, c);
}

// The canary every device pass checks first: a judge built with flush-to-zero (-ftz=true,
// fast math; nvcc defines no macro for it) decides subnormal references as 0 and widens
// subnormal outputs and grads as 0. gs = 1.5 * 2^-127 (an fp32 grad, decoded as the pass
// decodes), gc = 0, t = 2^-20: the reference is 0x1.8p-127 (exact: 1.5 * 2^-127 (1 - 2^-41)).
// Judged with got = ref it must be bit-equal to that reference; with got one subnormal step
// above, within every tier and one ulp off. Returns 0, or the bits of what came back wrong.
inline constexpr uint32_t canary_gs_bits = 0x00600000u;  // 0x1.8p-127
inline constexpr uint32_t canary_ref_bits = 0x00600000u;
enum CanaryFault : unsigned { canary_ref_wrong = 1u, canary_step_wrong = 2u };

ROPE2D_HD inline unsigned canary_faults_of(const Verdict& same, const Verdict& step) {
  unsigned f = 0;
  if (same.defer || !same.bit_equal || float_bits(same.ref) != canary_ref_bits || !same.subnormal_ieee) f |= canary_ref_wrong;
  if (step.defer || step.bit_equal || step.over != 0 || step.ulps != 1.0) f |= canary_step_wrong;
  return f;
}

ROPE2D_HD inline unsigned canary_faults() {
  const uint32_t bits = canary_gs_bits, ref_bits = canary_ref_bits, step_bits = canary_ref_bits + 1;
  const double gs = decode_grad(&bits, 0, ROPE2D_GRAD_FP32);
  float ref, step;
  memcpy(&ref, &ref_bits, 4);
  memcpy(&step, &step_bits, 4);
  const float t = 0x1p-20f;
  return canary_faults_of(judge(0.0, gs, t, ref), judge(0.0, gs, t, step));
}

// What a settled element adds to a tally whatever its error: the counts, the guards of the
// all-zero checks and SOL-ExecBench's largest errors. The host twin's CheckPartial and a device
// thread's sums (kernel.cu) both count with it, so the two passes agree on every count.
template <class Tally>
ROPE2D_HD inline void count_settled(Tally& t, const Verdict& v) {
  ++t.count;
  t.correctly_rounded += v.correctly_rounded;
  t.subnormal_ieee += v.subnormal_ieee;
  t.nan += v.nan;
  t.nonzero_ref |= v.nonzero_ref;
  t.nonzero_out |= v.nonzero_out;
  t.norm_ref |= v.norm_ref;
  t.norm_out |= v.norm_out;
  t.sxb_max_abs = fmax(t.sxb_max_abs, static_cast<double>(v.sxb.abs));
  t.sxb_max_rel = fmax(t.sxb_max_rel, static_cast<double>(v.sxb.rel));
}

// The element's record (a failure or the worst), from its inputs and verdict.
ROPE2D_HD inline CheckRecord make_record(int64_t index, double gc, double gs, float t, float got, const Verdict& v) {
  CheckRecord r;
  r.index = index;
  r.gc = gc;
  r.gs = gs;
  r.t = t;
  r.ref = v.ref;
  r.got = got;
  r.scaled = v.scaled;
  r.ulps = v.ulps;
  return r;
}

}  // namespace rope2d::verify::gpucheck
