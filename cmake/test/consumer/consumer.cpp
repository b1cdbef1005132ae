// A program of a downstream project against the installed package: the reference's two paths
// agree on elements whose exact results are known or bounded, and the installed golden smoke
// set opens with its checksums verified. Prints one line per check; exit 1 on any failure.
#include <cmath>
#include <cstdio>
#include <exception>

#include "rope2d/ref/backward.hpp"
#include "rope2d/verify/golden.hpp"

int main() {
  using namespace rope2d;
  int failures = 0;
  auto expect = [&](bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
  };
  // cos(0) = 1 exactly: -gc*sin(0) + gs*cos(0) = gs.
  expect(ref::exact_backward({2.0, 3.0, 0.0f}).fp32 == 3.0, "exact_backward at t = 0 returns gs");
  // A transcendental value: the correctly rounded float32 is within half an ulp of the double.
  const ref::Element e{0.75, -1.25, 1.0f};
  const double want = -0.75 * std::sin(1.0) + -1.25 * std::cos(1.0);
  const ref::Rounded exact = ref::exact_backward(e), fast = ref::certified_backward(e);
  expect(std::fabs(exact.fp32 - want) <= 0.5 * std::ldexp(1.0, std::ilogb(want) - 23), "float32 result within 1/2 ulp");
  expect(exact.fp32 == fast.fp32 && exact.bf16 == fast.bf16 && exact.fp16 == fast.fp16,
         "MPFR and certified paths agree in every dtype");
  try {
    const verify::GoldenSet set = verify::open_golden(ROPE2D_GOLDEN);
    expect(!set.files.empty(), "installed golden set opens, checksums verified");
    std::printf("golden set %s: %zu files\n", ROPE2D_GOLDEN, set.files.size());
  } catch (const std::exception& x) {
    expect(false, x.what());
  }
  return failures ? 1 : 0;
}
