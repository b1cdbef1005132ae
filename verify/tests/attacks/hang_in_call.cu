#include <unistd.h>
#include "stub_kernel.h"
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) {
  for (;;) pause();
}
