// A library that faults as it is loaded: its constructor raises SIGSEGV. Only the
// box's process dies (the load check without a GPU, the kernel host's start with one); the
// verifier reports the submission failed to load and writes its report.
#include <csignal>
#include "stub_kernel.h"
__attribute__((constructor)) static void attack() { std::raise(SIGSEGV); }
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
