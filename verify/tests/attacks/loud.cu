#include <unistd.h>
#include <cstring>
#include "stub_kernel.h"
__attribute__((constructor)) static void attack() {
  static char chunk[65536];
  std::memset(chunk, 'x', sizeof chunk);
  for (int i = 0; i < 80; ++i) (void)!write(1, chunk, sizeof chunk), (void)!write(2, chunk, sizeof chunk);
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
