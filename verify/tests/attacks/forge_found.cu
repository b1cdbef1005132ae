// No rope2d_backward at all: its constructor ends the kernel host's load check with exit 0
// before the entry point is looked up, so that the box's word is "found".
#include <unistd.h>
extern "C" int not_the_entry_point() { return 1; }
__attribute__((constructor)) static void attack() { _exit(0); }
