// A shared object whose rope2d_backward is only of a hidden version (rope2d_backward@V1, one
// '@'): its dynamic symbol table holds the name, but an unversioned lookup (dlsym, the kernel
// host's) finds nothing. The control, rope2d_backward_v2, is of the default version (@@V1) and
// is found. kinds_test: the verifier's lookup agrees with the loader on both.
extern "C" int rope2d_backward_hidden(void) { return 1; }
extern "C" int rope2d_backward_v2(void) { return 1; }
__asm__(".symver rope2d_backward_hidden, rope2d_backward@V1");
