// A libFuzzer entry point for one target of targets.hpp, chosen at build time.
#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rope2d::fuzz::ROPE2D_FUZZ_TARGET(data, size);
  return 0;
}
