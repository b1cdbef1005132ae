// A library whose loading never ends: its constructor waits for ever. The load check (no GPU)
// and the kernel host's start (GPU) are each ended at --load-timeout, the box killed with it.
#include "attack.h"
#include "stub_kernel.h"
__attribute__((constructor)) static void attack() {
  for (;;) pause();
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
