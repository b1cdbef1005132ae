// DEFECT: does not compile.
#include "rope2d/rope2d_backward.h"
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t n, int, cudaStream_t) { return undefined_name; }
