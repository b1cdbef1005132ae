// A shared object that forges the box's load check: no rope2d_backward at all, and a
// constructor that ends the kernel host with exit 0 before it looks the entry point up.
// kinds_test has the box load it: the judge's own reading of its symbol table refuses it.
#include <unistd.h>

extern "C" int not_the_entry_point(void) { return 1; }

__attribute__((constructor)) static void forge_found(void) { _exit(0); }
