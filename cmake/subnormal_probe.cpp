// The configure-time probe of the host's subnormal arithmetic (cmake/JudgeFlags.cmake's
// rope2d_probe_host_subnormals), built and run with the project's host flags: the judge's
// host twin and the reference must produce and read subnormals, and -ffast-math / -Ofast link
// crtfastmath, which sets flush-to-zero (FTZ) and denormals-are-zero (DAZ) for the whole
// process whatever the code says. Exit 0: subnormals survive; 1: each loss is named.
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {
// The bits, compared as integers: under DAZ a floating-point comparison with a subnormal
// constant reads that constant as zero too, and 0 == 2^-127 would hold.
std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
}  // namespace

int main() {
  // volatile: the values are read at run time, so no compiler folds the operations.
  volatile float f_min_normal = 0x1p-126f, f_half = 0.5f, f_sub = 0x1p-140f, f_two = 2.0f;
  volatile double d_min_normal = 0x1p-1022, d_half = 0.5, d_sub = 0x1p-1050, d_two = 2.0;
  const float f_made = f_min_normal * f_half;  // a subnormal result: FTZ returns 0
  const float f_read = f_sub * f_two;          // a subnormal operand: DAZ reads it as 0
  const double d_made = d_min_normal * d_half;
  const double d_read = d_sub * d_two;
  int lost = 0;
  if (bits(f_made) != 0x00400000u) lost += std::printf("float: 2^-126 * 0.5 gave %a, not 0x1p-127 (flush-to-zero)\n", f_made) > 0;
  if (bits(f_read) != 0x00000400u) lost += std::printf("float: 2^-140 * 2 gave %a, not 0x1p-139 (denormals-are-zero)\n", f_read) > 0;
  if (bits(d_made) != 0x0008000000000000u) lost += std::printf("double: 2^-1022 * 0.5 gave %a, not 0x1p-1023 (flush-to-zero)\n", d_made) > 0;
  if (bits(d_read) != 0x0000000002000000u) lost += std::printf("double: 2^-1050 * 2 gave %a, not 0x1p-1049 (denormals-are-zero)\n", d_read) > 0;
  if (lost == 0) std::printf("subnormals survive float and double arithmetic\n");
  return lost == 0 ? 0 : 1;
}
