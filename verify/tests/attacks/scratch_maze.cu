#include <sys/stat.h>
#include "attack.h"
#include "stub_kernel.h"
// Leaves its scratch folder so that the verifier cannot remove it: a chain of folders longer
// than a path can name and deeper than a table of open descriptors holds, a folder it may not
// enter (an ordinary user's verifier holds no right to enter it either), a link out of the
// folder. Its writes all stay inside its folder: none may be counted as refused.
__attribute__((constructor)) static void attack() {
  char name[101];
  std::memset(name, 'd', 100), name[100] = 0;
  int dir = ::open(".", O_RDONLY | O_DIRECTORY);
  for (int i = 0; i < 2000 && dir >= 0; ++i) {  // 200 kB of path, 2000 folders
    if (::mkdirat(dir, name, 0755) != 0) break;
    const int next = ::openat(dir, name, O_RDONLY | O_DIRECTORY);
    ::close(dir);
    dir = next;
  }
  if (dir >= 0) ::close(dir);
  ::mkdir("locked", 0755);
  ::close(::open("locked/file", O_WRONLY | O_CREAT, 0644));
  ::chmod("locked", 0);
  (void)!::symlink("/var/tmp", "link");
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
