// Unit tests of reading a timed run from kernel records: only the kernels after the one lead
// count, and a run whose records do not show that shape gives NaN rather than a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "harness/testbed/kernel_records.hpp"

using rope2d::verify::KernelRecord;
using rope2d::verify::kernel_ms_after_lead;

namespace {

constexpr const char* lead = "6detail4spinE";

// A flush kernel, the lead spin (1 ms), then two kernels of the launch under test.
std::vector<KernelRecord> run() {
  return {{"flush_fill", 0, 40'000},
          {"_ZN6rope2d6verify6detail4spinEm", 41'000, 1'041'000},
          {"_Z12backward_vecILi4EEvPKf", 1'041'500, 1'043'100},
          {"_Z11scalar_tailPKf", 1'043'200, 1'043'520}};
}

}  // namespace

TEST(KernelRecords, SumsTheKernelsAfterTheLeadOnly) {
  EXPECT_DOUBLE_EQ(kernel_ms_after_lead(run(), lead), (1'600 + 320) * 1e-6);
}

TEST(KernelRecords, OrderOfTheRecordsDoesNotMatter) {
  std::vector<KernelRecord> r = run();
  std::mt19937 rng(7);
  for (int k = 0; k < 10; ++k) {
    std::shuffle(r.begin(), r.end(), rng);
    EXPECT_DOUBLE_EQ(kernel_ms_after_lead(r, lead), (1'600 + 320) * 1e-6);
  }
}

TEST(KernelRecords, KernelsThatStartBeforeTheLeadEndsAreLeftOut) {
  std::vector<KernelRecord> r = run();
  r.push_back({"other_stream_kernel", 500'000, 600'000});  // ran during the spin
  EXPECT_DOUBLE_EQ(kernel_ms_after_lead(r, lead), (1'600 + 320) * 1e-6);
}

TEST(KernelRecords, NoTimeWithoutExactlyOneLeadAndAKernelAfterIt) {
  std::vector<KernelRecord> none = run();
  none.erase(none.begin() + 1);
  EXPECT_TRUE(std::isnan(kernel_ms_after_lead(none, lead)));

  std::vector<KernelRecord> two = run();
  two.push_back({"_ZN6rope2d6verify6detail4spinEm", 2'000'000, 3'000'000});
  EXPECT_TRUE(std::isnan(kernel_ms_after_lead(two, lead)));

  std::vector<KernelRecord> lead_only = run();
  lead_only.resize(2);  // a launch that ran no kernel (a copy, or a call that returned early)
  EXPECT_TRUE(std::isnan(kernel_ms_after_lead(lead_only, lead)));

  EXPECT_TRUE(std::isnan(kernel_ms_after_lead({}, lead)));
}
