// The entry point of attacks that compute nothing: writes no output, returns 0.
#pragma once
#include "rope2d/rope2d_backward.h"
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t);
