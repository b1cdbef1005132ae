// DEFECT: exports the wrong symbol.
#include "rope2d/rope2d_backward.h"
extern "C" int rope2d_backward_v2(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
