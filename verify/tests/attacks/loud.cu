#include "attack.h"
#include "stub_kernel.h"
__attribute__((constructor)) static void attack() { loud(); }
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
