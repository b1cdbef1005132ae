// The tolerance table and its per-element allowance.
#include "rope2d/verify/tolerance.hpp"

#include <cmath>

#include "rope2d/ref/float32_bound.hpp"

namespace rope2d::verify {

namespace {

constexpr double u = 0x1p-24;

// Judged against the correctly rounded ref rather than the exact value, every tier but
// solexecbench adds half an ulp of ref (at most u |ref|) to what it allows against the exact
// value, so an honest kernel is never failed for the reference's own rounding.
const TierRule table[] = {
    {Tier::strict, "strict", ref::cuda_sincosf_bound.c * u, ref::cuda_sincosf_bound.d + u, 0, 1.0,
     "proven float32 bound for sin/cos within 2 ulp (CUDA sincosf), reference/FLOAT32_BOUND.md: "
     "c = 5 + 9u, d = u"},
    {Tier::faithful_bf16, "faithful-bf16", 0x1p-8, u, 0, 1.0,
     "rounding the grads to bf16 moves the result by up to 2^-8 S: an error below that is below the input's noise"},
    {Tier::faithful_fp16, "faithful-fp16", 0x1p-11, u, 0, 1.0,
     "rounding the grads to fp16 moves the result by up to 2^-11 S"},
    {Tier::faithful_fp32, "faithful-fp32", u, u, 0, 1.0,
     "rounding the grads to fp32 moves the result by up to 2^-24 S; float32 evaluation alone errs by more, so only "
     "kernels that compute in higher precision meet it"},
    {Tier::solexecbench, "solexecbench", 0, 1e-5, 1e-5, 0.99,
     "SOL-ExecBench workload.jsonl: max_atol = max_rtol = 1e-5, required_matched_ratio 0.99"},
};

}  // namespace

const TierRule& rule(Tier t) { return table[static_cast<int>(t)]; }

std::string_view name(Tier t) { return rule(t).name; }

std::optional<Tier> parse_tier(std::string_view s) {
  for (const TierRule& r : table)
    if (r.name == s) return r.tier;
  return std::nullopt;
}

double allowance(Tier t, double ref, double scale, double gc) {
  const TierRule& r = rule(t);
  if (t == Tier::solexecbench) return r.atol + r.ref_coeff * std::fabs(ref);
  // The subnormal-range term of the proven bound (eta), for every bound-based tier.
  const double eta = (ref::cuda_sincosf_bound.k_ulp + 1) * 0x1p-149 * std::fabs(gc) + 0x1p-148 + 0x1p-150;
  return r.scale_coeff * scale + r.ref_coeff * std::fabs(ref) + eta;
}

}  // namespace rope2d::verify
