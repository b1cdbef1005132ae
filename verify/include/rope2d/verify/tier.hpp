// The tolerance tiers as an enum the host and the device share (no standard-library types):
// the list of every tier and their count, derived from the list. tolerance_core.hpp gives each
// its coefficients and checks, at compile time, that the list holds every enumerator in order;
// tolerance.hpp names them and says where their numbers come from.
#pragma once

namespace rope2d::verify {

// The old spellings (strict, faithful_*) stay as aliases so code written against them builds.
enum class Tier {
  float32_bound,
  bf16_noise,
  fp16_noise,
  fp32_noise,
  solexecbench,
  strict = float32_bound,
  faithful_bf16 = bf16_noise,
  faithful_fp16 = fp16_noise,
  faithful_fp32 = fp32_noise,
};

// Every tier, in the enum's order (static_assert'ed in tolerance_core.hpp).
inline constexpr Tier all_tiers[] = {Tier::float32_bound, Tier::bf16_noise, Tier::fp16_noise, Tier::fp32_noise,
                                     Tier::solexecbench};
inline constexpr int tier_count = static_cast<int>(sizeof(all_tiers) / sizeof(all_tiers[0]));

}  // namespace rope2d::verify
