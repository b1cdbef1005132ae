#include <dirent.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include "rope2d/rope2d_backward.h"
// Looks in its scratch folder for what the verifier copied there from its own folder besides
// what it includes: a header it does not name (neighbour/private.h, which stands for another
// submission's or anything of a hidden home beside it) found there fails its own load check
// (exit 5, "STOLE").
static int walk(const char* dir) {
  int found = 0;
  DIR* d = opendir(dir);
  if (!d) return 0;
  while (const dirent* e = readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
    char p[1024];
    std::snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (e->d_type == DT_DIR) found += walk(p);
    else if (std::strstr(e->d_name, "private")) std::fprintf(stderr, "STOLE %s\n", p), ++found;
  }
  closedir(d);
  return found;
}
__attribute__((constructor)) static void attack() {
  if (walk(".")) _exit(5);
}
extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }
