// The main of every GPU test (gtest): without a usable device it prints why and exits 77, which
// CTest reports as SKIPPED (SKIP_RETURN_CODE), never PASSED; with one it names the device and
// runs the tests.
#include <gtest/gtest.h>

#include <cstdio>

#include "harness/testbed/device.hpp"

int main(int argc, char** argv) {
  const rope2d::verify::DeviceInfo info = rope2d::verify::probe_device();
  if (!info.available) {
    std::printf("SKIPPED: %s\n", info.reason.c_str());
    return 77;
  }
  std::printf("device: %s, %d SMs\n", info.name.c_str(), info.sm_count);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
