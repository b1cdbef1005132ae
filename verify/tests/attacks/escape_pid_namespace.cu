#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include "attack.h"
#include "stub_kernel.h"
// Processes made to outlive the box, each writing a mark 5 s later: a double fork into a new
// session (reparented to the box's init), a child subreaper's orphan, and the init and a child
// of a PID namespace nested in the box's own (with a user namespace of its own).
static void linger(const char* name) {
  signal(SIGHUP, SIG_IGN), signal(SIGTERM, SIG_IGN);
  for (int i = 0; i < 50; ++i) usleep(100000);
  leave_mark(name, "outlived the box");
  _exit(0);
}
__attribute__((constructor)) static void attack() {
  if (fork() == 0) {
    setsid();
    if (fork() == 0) linger("double_fork.txt");
    _exit(0);
  }
  if (fork() == 0) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (fork() == 0) linger("subreaper.txt");
    linger("subreaper_parent.txt");
  }
  if (fork() == 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0 && fork() == 0) {
      if (fork() == 0) linger("nested_namespace.txt");
      linger("nested_init.txt");
    }
    _exit(0);
  }
  usleep(200000);
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
