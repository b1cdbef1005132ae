// A daemon that holds every descriptor it inherited (the box's output pipe, the host's socket)
// open for ever, in a session of its own, and leaves the load or the call to return at once: a
// reader that waits for the end of a pipe would wait for ever. The run ends on time, the
// daemon with its box.
#include "attack.h"
#include "stub_kernel.h"
static void hold_everything() {
  if (fork() == 0) {
    setsid();
    for (;;) pause();
  }
}
__attribute__((constructor)) static void attack() { hold_everything(); }
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) {
  hold_everything();
  return 0;
}
